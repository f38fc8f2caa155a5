/// An issued access token as the store keeps it: never the token itself, only its SHA-256.
public struct AccessToken: Sendable, Hashable {
    /// Hex SHA-256 of the token's text.
    public var hash: String
    public var appID: AppID
    public var principal: Principal
    /// Nil for a token that does not expire.
    public var expiresAt: UnixMillis?
    public var createdAt: UnixMillis
    /// For a token a gateway minted for its end node: that gateway. Such a token acts for the end
    /// node's Thing-IF traffic only (its states, command results, connection, installations),
    /// never for who owns or controls the end node (owners, password, vendor thing ID, status,
    /// deletion); it ends when the end node leaves that gateway.
    public var relay: ThingID?

    public init(
        hash: String, appID: AppID, principal: Principal, expiresAt: UnixMillis?, createdAt: UnixMillis,
        relay: ThingID? = nil
    ) {
        self.hash = hash
        self.appID = appID
        self.principal = principal
        self.expiresAt = expiresAt
        self.createdAt = createdAt
        self.relay = relay
    }

    /// True when the token may still be used at `now`.
    public func isValid(at now: UnixMillis) -> Bool {
        expiresAt.map { now < $0 } ?? true
    }
}
