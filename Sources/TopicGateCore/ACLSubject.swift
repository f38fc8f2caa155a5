/// Who a topic ACL entry is for.
///
/// Wire forms in paths: `UserID:<id>`, `GroupID:<id>`, `ThingID:<id>`,
/// `UserID:ANY_AUTHENTICATED_USER`, `UserID:ANONYMOUS_USER`; in bodies `{"userID": …}`,
/// `{"groupID": …}`, `{"thingID": …}`.
public enum ACLSubject: Sendable, Hashable, Comparable, CustomStringConvertible, JSONRepresentable {
    case user(UserID)
    case group(GroupID)
    case thing(ThingID)
    /// Every caller with credentials: users and things.
    case anyAuthenticated
    /// Callers with no credentials (or an anonymous app token).
    case anonymous

    /// Parses the path form; the type prefix is matched case-insensitively.
    public init?(parsing text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let id = String(text[text.index(after: colon)...])
        switch text[..<colon].lowercased() {
        case "userid":
            switch id {
            case "ANY_AUTHENTICATED_USER": self = .anyAuthenticated
            case "ANONYMOUS_USER": self = .anonymous
            default:
                guard IDSyntax.isWellFormed(id) else { return nil }
                self = .user(UserID(id))
            }
        case "groupid":
            guard IDSyntax.isWellFormed(id) else { return nil }
            self = .group(GroupID(id))
        case "thingid":
            guard IDSyntax.isWellFormed(id) else { return nil }
            self = .thing(ThingID(id))
        default:
            return nil
        }
    }

    /// The path form.
    public var description: String {
        switch self {
        case .user(let id): "UserID:\(id.rawValue)"
        case .group(let id): "GroupID:\(id.rawValue)"
        case .thing(let id): "ThingID:\(id.rawValue)"
        case .anyAuthenticated: "UserID:ANY_AUTHENTICATED_USER"
        case .anonymous: "UserID:ANONYMOUS_USER"
        }
    }

    /// The user or thing the subject names; nil for a group and the two rules.
    public var principal: Principal? {
        switch self {
        case .user(let id): .user(id)
        case .thing(let id): .thing(id)
        case .group, .anyAuthenticated, .anonymous: nil
        }
    }

    /// The body form of `ACLRetrievalResponse`.
    public var json: JSONValue {
        switch self {
        case .user(let id): ["userID": .string(id.rawValue)]
        case .group(let id): ["groupID": .string(id.rawValue)]
        case .thing(let id): ["thingID": .string(id.rawValue)]
        case .anyAuthenticated: ["userID": "ANY_AUTHENTICATED_USER"]
        case .anonymous: ["userID": "ANONYMOUS_USER"]
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.description < rhs.description }
}
