public import TopicGateCore

/// Access tokens, kept only by their SHA-256.
public protocol TokenStore: Sendable {
    func insertToken(_ token: AccessToken) async throws
    func token(hash: String) async throws -> AccessToken?
    /// Revokes every token of `principal` except the one whose hash is `keeping`; returns how
    /// many were revoked.
    @discardableResult
    func revokeTokens(appID: AppID, principal: Principal, keeping: String?) async throws -> Int
}
