import Foundation

/// What a page shows a curl answering: `201 Location: /api/… {"installationID":…}`, over one
/// or several comment lines. Lines after the body, and lines in parentheses, are the page's notes.
struct ShownAnswer {
    var status: Int?
    var headers: [(name: String, value: String)]
    var body: ShownJSON?

    init(_ lines: [String]) throws {
        status = nil
        headers = []
        body = nil
        guard var first = lines.first else { return }
        if let match = first.firstMatch(of: /^(\d{3})\b\s*/) {
            status = Int(match.1)
            first = String(first[match.range.upperBound...])
        }
        let head =
            first.split(separator: "{", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        for match in head.matches(of: /([A-Za-z][A-Za-z-]*): (\S+)/) {
            headers.append((String(match.1), String(match.2)))
        }
        var json = first.firstIndex(of: "{").map { String(first[$0...]) }
        for line in lines.dropFirst() {
            if json == nil {
                guard line.hasPrefix("{") else { break }
                json = line
            } else if Self.isOpen(json!) {
                json! += line
            } else {
                break
            }
        }
        // Where the page left a status without a body ("204", "204 = owner"), or a sentence.
        guard let json, status != nil || lines[0].hasPrefix("{") else { return }
        body = try ShownJSON.parse(json)
    }

    /// True while `text` has a `{` or `[` outside strings that is not closed.
    static func isOpen(_ text: String) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for character in text {
            if inString {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                }
            } else if character == "\"" {
                inString = true
            } else if character == "{" || character == "[" {
                depth += 1
            } else if character == "}" || character == "]" {
                depth -= 1
            }
        }
        return depth > 0
    }
}
