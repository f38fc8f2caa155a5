/// An application: the tenant every user, group and thing belongs to.
///
/// The app key travels in every SDK request and is not a secret (ebisu sends a dummy); the
/// client secret is, and is kept only as its SHA-256 hash.
public struct App: Sendable, Hashable {
    public var id: AppID
    public var key: String
    public var clientID: String
    public var clientSecretHash: String
    public var name: String
    public var createdAt: UnixMillis

    public init(id: AppID, key: String, clientID: String, clientSecretHash: String, name: String, createdAt: UnixMillis)
    {
        self.id = id
        self.key = key
        self.clientID = clientID
        self.clientSecretHash = clientSecretHash
        self.name = name
        self.createdAt = createdAt
    }
}
