/// A user's link to an identity outside TopicGate (for example an iCloud user record name):
/// whoever presents the same provider, external ID and secret gets this user back. The secret
/// is kept only as its SHA-256.
public struct AccountLink: Sendable, Hashable, JSONRepresentable {
    public var appID: AppID
    public var provider: String
    public var externalID: String
    public var secretHash: String
    public var userID: UserID
    public var createdAt: UnixMillis
    /// When the secret was last set (at creation or by a rotation).
    public var secretSetAt: UnixMillis
    /// When a device last logged in with this link (nil: never).
    public var lastLoginAt: UnixMillis?

    public init(
        appID: AppID, provider: String, externalID: String, secretHash: String, userID: UserID, createdAt: UnixMillis,
        secretSetAt: UnixMillis? = nil, lastLoginAt: UnixMillis? = nil
    ) {
        self.appID = appID
        self.provider = provider
        self.externalID = externalID
        self.secretHash = secretHash
        self.userID = userID
        self.createdAt = createdAt
        self.secretSetAt = secretSetAt ?? createdAt
        self.lastLoginAt = lastLoginAt
    }

    /// The link as its user sees it: never the secret, not even its hash.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "provider": .string(provider), "externalID": .string(externalID), "userID": .string(userID.rawValue),
            "createdAt": createdAt.json, "secretSetAt": secretSetAt.json,
        ]
        if let lastLoginAt { object["lastLoginAt"] = lastLoginAt.json }
        return .object(object)
    }
}
