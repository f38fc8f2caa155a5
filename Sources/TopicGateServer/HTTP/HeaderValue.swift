/// Header values read without Foundation, whose trimming goes through `NSString` (8% of an
/// authenticated read, for the `Authorization` header alone).
enum HeaderValue {
    /// `text` without the spaces and tabs around it.
    static func trimmed(_ text: Substring) -> Substring {
        let isSpace = { (character: Character) in character == " " || character == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }) else { return text[text.endIndex...] }
        let last = text.lastIndex(where: { !isSpace($0) }) ?? first
        return text[first...last]
    }
}
