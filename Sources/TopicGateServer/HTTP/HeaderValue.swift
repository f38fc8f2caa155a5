/// Header values read byte by byte, without Foundation (whose trimming goes through `NSString`,
/// a large share of an authenticated read for `Authorization` alone) and without walking characters
/// (grapheme breaking, for values that are ASCII where it matters).
enum HeaderValue {
    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// `text` without the spaces and tabs around it.
    static func trimmed(_ text: Substring) -> Substring {
        let bytes = text.utf8
        guard let first = bytes.firstIndex(where: { !isSpace($0) }),
            let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return text[text.endIndex...] }
        // Both ends border a space or an end, so they are character boundaries.
        return text[first..<bytes.index(after: last)]
    }

    /// An `Authorization` value (trimmed) split at its first space: the scheme, and the
    /// credentials without the blanks around them.
    static func schemeAndCredentials(_ header: Substring) -> (scheme: Substring, credentials: String) {
        let bytes = header.utf8
        guard let space = bytes.firstIndex(of: 0x20) else { return (header, "") }
        return (header[..<space], String(trimmed(header[bytes.index(after: space)...])))
    }

    /// Whether `scheme` is `name` (lowercase letters) in any case.
    static func isScheme(_ scheme: Substring, _ name: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        return scheme.utf8.count == expected.count && zip(scheme.utf8, expected).allSatisfy { $0 | 0x20 == $1 }
    }
}
