/// An issued access token as the store keeps it: never the token itself, only its SHA-256.
public struct AccessToken: Sendable, Hashable {
    /// Hex SHA-256 of the token's text.
    public var hash: String
    public var appID: AppID
    public var principal: Principal
    /// Nil for a token that does not expire.
    public var expiresAt: UnixMillis?
    public var createdAt: UnixMillis

    public init(hash: String, appID: AppID, principal: Principal, expiresAt: UnixMillis?, createdAt: UnixMillis) {
        self.hash = hash
        self.appID = appID
        self.principal = principal
        self.expiresAt = expiresAt
        self.createdAt = createdAt
    }

    /// True when the token may still be used at `now`.
    public func isValid(at now: UnixMillis) -> Bool {
        expiresAt.map { now < $0 } ?? true
    }
}
