import TopicGateCore
import TopicGateStore

/// Issues access tokens: 256 random bits handed to the client once, stored as SHA-256.
package struct TokenIssuer: Sendable {
    /// What `expires_in` says of a token that does not expire (Kii's value).
    static let neverExpiresSeconds: Int64 = 2_147_483_647

    let store: any TokenStore
    let time: TimeSource

    package init(store: any TokenStore, time: TimeSource) {
        self.store = store
        self.time = time
    }

    /// A new token for `principal`, valid until `expiresAt` or for ever; `relay`: the gateway
    /// that minted it for its end node (`AccessToken.relay`).
    func issue(appID: AppID, principal: Principal, expiresAt: UnixMillis? = nil, relay: ThingID? = nil) async throws
        -> String
    {
        let (token, made) = make(appID: appID, principal: principal, expiresAt: expiresAt)
        var stored = made
        stored.relay = relay
        try await store.insertToken(stored)
        return token
    }

    /// A new token and the record of it to store (only its hash), for a caller that stores it
    /// together with something else.
    package func make(appID: AppID, principal: Principal, expiresAt: UnixMillis? = nil)
        -> (token: String, stored: AccessToken)
    {
        let token = Secrets.accessToken()
        return (
            token,
            AccessToken(
                hash: Secrets.sha256(token), appID: appID, principal: principal, expiresAt: expiresAt,
                createdAt: time.now())
        )
    }

    /// The token endpoint's response for `token`.
    func grant(id: String, token: String, expiresAt: UnixMillis?) -> TokenGrant {
        let expiresIn = expiresAt.map { max(0, ($0 - time.now()).components.seconds) } ?? Self.neverExpiresSeconds
        return TokenGrant(id: id, accessToken: token, tokenType: "Bearer", expiresIn: expiresIn)
    }
}
