/// How much an app holds, for the operator's overview.
public struct AppCounts: Sendable, Hashable, Encodable {
    /// Every user, pseudo users included.
    public var users: Int
    /// Users without a password (identified by their token only).
    public var pseudoUsers: Int
    public var groups: Int
    public var things: Int
    /// Topics of all four scopes.
    public var topics: Int
    /// Installations not revoked.
    public var installations: Int

    public init(users: Int, pseudoUsers: Int, groups: Int, things: Int, topics: Int, installations: Int) {
        self.users = users
        self.pseudoUsers = pseudoUsers
        self.groups = groups
        self.things = things
        self.topics = topics
        self.installations = installations
    }
}
