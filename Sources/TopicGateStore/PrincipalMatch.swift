/// A user, group or thing an operator's search found.
public struct PrincipalMatch: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case user
        case group
        case thing
    }

    public var kind: Kind
    public var id: String
    /// How people know it: a user's login name (or display name), a group's name, a thing's
    /// vendor thing ID.
    public var name: String?
    /// More that tells it apart: a user's email address or phone number, or that it is a
    /// pseudo user.
    public var detail: String?
    public var disabled: Bool

    public init(kind: Kind, id: String, name: String?, detail: String?, disabled: Bool) {
        self.kind = kind
        self.id = id
        self.name = name
        self.detail = detail
        self.disabled = disabled
    }
}
