/// An issued access token as the store keeps it: never the token itself, only its SHA-256.
public struct AccessToken: Sendable, Hashable {
    /// Hex SHA-256 of the token's text.
    public var hash: String
    public var appID: AppID
    public var principal: Principal
    /// Milliseconds since 1970; nil for a token that does not expire.
    public var expiresAt: Int64?
    public var createdAt: Int64

    public init(hash: String, appID: AppID, principal: Principal, expiresAt: Int64?, createdAt: Int64) {
        self.hash = hash
        self.appID = appID
        self.principal = principal
        self.expiresAt = expiresAt
        self.createdAt = createdAt
    }

    /// True when the token may still be used at `now` (milliseconds since 1970).
    public func isValid(at now: Int64) -> Bool {
        expiresAt.map { now < $0 } ?? true
    }
}
