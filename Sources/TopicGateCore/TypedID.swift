/// A Thing-IF typed ID: `user:ID`, `group:ID` or `thing:ID`.
///
/// Parsing is case-insensitive in the prefix (Go and VirtualDevice send `THING:`); the
/// written form is always lower case, as TIF-JS writes it.
public enum TypedID: Sendable, Hashable, CustomStringConvertible {
    case user(UserID)
    case group(GroupID)
    case thing(ThingID)

    /// Parses `kind:ID`; nil for another prefix or a malformed ID.
    public init?(parsing text: some StringProtocol) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let id = text[text.index(after: colon)...]
        guard IDSyntax.isWellFormed(id) else { return nil }
        switch text[..<colon].lowercased() {
        case "user": self = .user(UserID(String(id)))
        case "group": self = .group(GroupID(String(id)))
        case "thing": self = .thing(ThingID(String(id)))
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .user(let id): "user:\(id.rawValue)"
        case .group(let id): "group:\(id.rawValue)"
        case .thing(let id): "thing:\(id.rawValue)"
        }
    }
}
