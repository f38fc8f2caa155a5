/// A JSON parser (RFC 8259) straight into `JSONValue`, over the bytes as they came: no `Data`,
/// no `Decodable` tries per value. Every request body and every stored JSON column goes
/// through it, so it is written for that path: one pass, no backtracking.
///
/// What it takes: one value with whitespace around it; numbers without a fraction or an
/// exponent that fit 64 bits are `.int`, every other number `.double` (one that no `Double`
/// holds, such as `1e999`, is refused); strings must be valid UTF-8 without raw control
/// characters, with the standard escapes and `\u` surrogate pairs (a lone surrogate is
/// refused); a repeated key keeps its last value; nesting deeper than `maximumDepth` is
/// refused (so a hostile body cannot exhaust the stack).
public struct JSONParser {
    /// The deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 512

    /// Why `bytes` are not one JSON value.
    public struct Failure: Error, Hashable {
        public let offset: Int
    }

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The one value that `bytes` hold.
    public static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes)
        parser.skipWhitespace()
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure }
        return value
    }

    private var failure: Failure { Failure(offset: index) }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func value() throws(Failure) -> JSONValue {
        guard index < bytes.count else { throw failure }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(Failure) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw failure }
        index += count
        return value
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure }
        index += 1
        skipWhitespace()
    }

    private mutating func object() throws(Failure) -> JSONValue {
        try enter()
        var members: [String: JSONValue] = [:]
        if closes(UInt8(ascii: "}")) { return .object(members) }
        repeat {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure }
            index += 1
            skipWhitespace()
            members[key] = try value()
        } while try another(closing: UInt8(ascii: "}"))
        return .object(members)
    }

    private mutating func array() throws(Failure) -> JSONValue {
        try enter()
        var elements: [JSONValue] = []
        if closes(UInt8(ascii: "]")) { return .array(elements) }
        repeat {
            elements.append(try value())
        } while try another(closing: UInt8(ascii: "]"))
        return .array(elements)
    }

    /// True (and the container left) when `closing` follows at once: an empty container.
    private mutating func closes(_ closing: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == closing else { return false }
        index += 1
        depth -= 1
        return true
    }

    /// After a member or an element: a comma (true: another one follows) or `closing` (false:
    /// the container is left).
    private mutating func another(closing: UInt8) throws(Failure) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw failure }
        if bytes[index] == UInt8(ascii: ",") {
            index += 1
            skipWhitespace()
            return true
        }
        guard closes(closing) else { throw failure }
        return false
    }

    /// A string at `index` (its opening quote), unescaped.
    private mutating func string() throws(Failure) -> String {
        index += 1
        let start = index
        // Fast path: no escapes, the bytes are the string.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = try text(bytes[start..<index])
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw failure }
            index += 1
        }
        var unescaped = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try text(unescaped[...])
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw failure }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(escaped)
                case UInt8(ascii: "b"): unescaped.append(0x08)
                case UInt8(ascii: "f"): unescaped.append(0x0C)
                case UInt8(ascii: "n"): unescaped.append(0x0A)
                case UInt8(ascii: "r"): unescaped.append(0x0D)
                case UInt8(ascii: "t"): unescaped.append(0x09)
                case UInt8(ascii: "u"): unescaped.append(contentsOf: try unicodeEscape())
                default: throw failure
                }
            default:
                guard byte >= 0x20 else { throw failure }
                unescaped.append(byte)
                index += 1
            }
        }
        throw failure
    }

    /// The UTF-8 of a `\uXXXX` escape (the `u` already read), with its low surrogate if it is a
    /// high one.
    private mutating func unicodeEscape() throws(Failure) -> [UInt8] {
        var scalar = try hex4()
        if (0xD800...0xDBFF).contains(scalar) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { throw failure }
            index += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw failure }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
            throw failure
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw failure }
        return Array(String(Character(unicode)).utf8)
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private func text(_ utf8: ArraySlice<UInt8>) throws(Failure) -> String {
        guard let text = String(validating: utf8, as: UTF8.self) else { throw failure }
        return text
    }

    private mutating func number() throws(Failure) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw failure }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() > 0 else { throw failure }
        }
        var integral = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard digits() > 0 else { throw failure }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() > 0 else { throw failure }
        }
        let literal = String(decoding: bytes[start..<index], as: UTF8.self)
        if integral, let integer = Int64(literal) { return .int(integer) }
        guard let double = Double(literal), double.isFinite else { throw Failure(offset: start) }
        return .double(double)
    }

    /// Skips decimal digits; how many there were.
    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }
}
