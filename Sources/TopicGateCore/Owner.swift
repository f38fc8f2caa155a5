/// Who owns a thing: a user, or a group (whose members then act for it).
public enum Owner: Sendable, Hashable, CustomStringConvertible {
    case user(UserID)
    case group(GroupID)

    /// Parses the typed form `user:ID` / `group:ID` (case-insensitive prefix).
    public init?(parsing text: some StringProtocol) {
        switch TypedID(parsing: text) {
        case .user(let id): self = .user(id)
        case .group(let id): self = .group(id)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .user(let id): "user:\(id.rawValue)"
        case .group(let id): "group:\(id.rawValue)"
        }
    }
}
