import Foundation

/// JSON as a page shows it: `…` stands for a value, for the members or elements left out, or
/// inside a string for the characters left out.
indirect enum ShownJSON: Equatable {
    case anything
    case string(String)
    case number(String)
    case bool(Bool)
    case null
    /// `open`: the page left members out (`,…}`).
    case object([Member], open: Bool)
    case array([ShownJSON], open: Bool)

    struct Member: Equatable {
        var key: String
        var value: ShownJSON
    }

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// Parses all of `text`.
    static func parse(_ text: String) throws -> ShownJSON {
        var parser = Parser(characters: Array(text))
        let value = try parser.value()
        parser.skipSpace()
        guard parser.position == parser.characters.count else {
            throw Malformed(description: "text after the JSON value in \(text)")
        }
        return value
    }

    struct Parser {
        let characters: [Character]
        var position = 0

        mutating func skipSpace() {
            while position < characters.count, characters[position].isWhitespace { position += 1 }
        }

        mutating func take(_ character: Character) -> Bool {
            skipSpace()
            guard position < characters.count, characters[position] == character else { return false }
            position += 1
            return true
        }

        mutating func value() throws -> ShownJSON {
            skipSpace()
            guard position < characters.count else { throw Malformed(description: "a value is missing") }
            switch characters[position] {
            case "…":
                position += 1
                return .anything
            case "{":
                position += 1
                var members: [Member] = []
                var open = false
                while !take("}") {
                    if !members.isEmpty || open { _ = take(",") }
                    if take("…") {
                        open = true
                        continue
                    }
                    let key = try string()
                    guard take(":") else { throw Malformed(description: "':' missing after \"\(key)\"") }
                    members.append(Member(key: key, value: try value()))
                }
                return .object(members, open: open)
            case "[":
                position += 1
                var elements: [ShownJSON] = []
                var open = false
                while !take("]") {
                    if !elements.isEmpty || open { _ = take(",") }
                    if take("…") {
                        open = true
                        continue
                    }
                    elements.append(try value())
                }
                return .array(elements, open: open)
            case "\"":
                return .string(try string())
            default:
                let start = position
                while position < characters.count, !",}] \n".contains(characters[position]) { position += 1 }
                let word = String(characters[start..<position])
                switch word {
                case "true": return .bool(true)
                case "false": return .bool(false)
                case "null": return .null
                default:
                    guard Double(word) != nil else { throw Malformed(description: "'\(word)' is not a JSON value") }
                    return .number(word)
                }
            }
        }

        mutating func string() throws -> String {
            guard take("\"") else { throw Malformed(description: "a string must start with '\"'") }
            var text = ""
            while position < characters.count, characters[position] != "\"" {
                if characters[position] == "\\", position + 1 < characters.count {
                    position += 1
                }
                text.append(characters[position])
                position += 1
            }
            guard position < characters.count else { throw Malformed(description: "unterminated string") }
            position += 1
            return text
        }
    }
}
