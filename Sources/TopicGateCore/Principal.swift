/// Who is making a request, as established from its credentials.
public enum Principal: Sendable, Hashable, CustomStringConvertible {
    /// The app's administrator (client credentials).
    case admin
    /// A user, pseudo or normal.
    case user(UserID)
    /// A thing.
    case thing(ThingID)
    /// A caller with no credentials, or with an anonymous app token.
    case anonymous

    /// The ID Kii reports as `authenticatedPrincipalID`.
    public var principalID: String {
        switch self {
        case .admin: "ADMIN"
        case .user(let id): id.rawValue
        case .thing(let id): id.rawValue
        case .anonymous: "ANONYMOUS_USER"
        }
    }

    public var description: String {
        switch self {
        case .admin: "admin"
        case .user(let id): "user:\(id.rawValue)"
        case .thing(let id): "thing:\(id.rawValue)"
        case .anonymous: "anonymous"
        }
    }

    /// The user's ID, when the principal is a user.
    public var userID: UserID? {
        if case .user(let id) = self { return id }
        return nil
    }

    /// The thing's ID, when the principal is a thing.
    public var thingID: ThingID? {
        if case .thing(let id) = self { return id }
        return nil
    }
}
