import TopicGateCore
import TopicGateStore

/// Creating apps and their credentials. The client secret is shown once, when it is made,
/// and kept only as a hash.
public struct AppRegistry: Sendable {
    /// An app with the client secret that was just made for it.
    public struct Credentials: Sendable {
        public let app: App
        public let clientSecret: String
    }

    let store: any AppStore & TokenStore
    let time: TimeSource

    public init(store: any AppStore & TokenStore, time: TimeSource = .system) {
        self.store = store
        self.time = time
    }

    /// A new app with fresh credentials.
    public func create(name: String) async throws -> Credentials {
        let secret = Secrets.randomHex(bytes: 32)
        let app = App(
            id: AppID(Secrets.randomHex(bytes: 4)), key: Secrets.randomHex(bytes: 16),
            clientID: Secrets.randomHex(bytes: 16), clientSecretHash: Secrets.sha256(secret), name: name,
            createdAt: time.now())
        try await store.insertApp(app)
        return Credentials(app: app, clientSecret: secret)
    }

    /// The first app, created on first start; nil secret when it existed already.
    public func defaultApp() async throws -> (App, String?) {
        if let existing = try await store.apps().first { return (existing, nil) }
        let created = try await create(name: "default")
        return (created.app, created.clientSecret)
    }

    /// A new client secret for an app; the old one stops working and its admin tokens are revoked.
    public func resetSecret(appID: AppID) async throws -> Credentials? {
        guard var app = try await store.app(id: appID) else { return nil }
        let secret = Secrets.randomHex(bytes: 32)
        app.clientSecretHash = Secrets.sha256(secret)
        try await store.updateApp(app)
        try await store.revokeTokens(appID: appID, principal: .admin, keeping: nil)
        return Credentials(app: app, clientSecret: secret)
    }
}
