public import TopicGateCore

/// Access tokens, kept only by their SHA-256.
public protocol TokenStore: Sendable {
    func insertToken(_ token: AccessToken) async throws
    func token(hash: String) async throws -> AccessToken?
    /// The token with what authentication needs of its holder, in one read: nil when there is
    /// no such token or its user or thing is gone.
    func tokenHolder(hash: String) async throws -> TokenHolder?
    /// Revokes every token of `principal` except the one whose hash is `keeping`; returns how
    /// many were revoked.
    @discardableResult
    func revokeTokens(appID: AppID, principal: Principal, keeping: String?) async throws -> Int
    /// Revokes the one token whose hash is `hash`; false when there was none.
    @discardableResult
    func revokeToken(hash: String) async throws -> Bool
}

/// A token and the state of the user or thing holding it.
public struct TokenHolder: Sendable, Hashable {
    public var token: AccessToken
    /// The user or thing is disabled (never for the admin or anonymous).
    public var disabled: Bool
    /// A user's last-seen time; nil for other principals.
    public var lastSeenAt: UnixMillis?

    public init(token: AccessToken, disabled: Bool, lastSeenAt: UnixMillis?) {
        self.token = token
        self.disabled = disabled
        self.lastSeenAt = lastSeenAt
    }
}
