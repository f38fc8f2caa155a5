import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TopicGateCore
import TopicGateStore

/// Establishes the `Caller` of a request from its app (always taken from the path, never from
/// the app key, which ebisu sends as a dummy) and its `Authorization` header:
/// - `Bearer <token>` (scheme in any case, as the JS SDK sends `bearer`),
/// - `Basic base64(appID:appKey)` for an anonymous call, `Basic base64(clientID:clientSecret)`
///   for the admin,
/// - nothing: anonymous.
struct Authenticator: Sendable {
    let store: any AppStore & TokenStore & UserStore & StatesCaching
    let time: TimeSource
    /// Whether the client address is taken from `X-Forwarded-For` (see `ClientAddress`).
    let proxyTrust: ProxyTrust
    /// How stale a user's last-seen time may get before a request writes it again.
    let lastSeenResolution: Duration = .seconds(60)

    /// Apps read in the last two seconds (every request names its app; apps change rarely),
    /// and on SQLite only while the identity generation stays: `topicgate apps reset-secret`,
    /// run beside the server, moves it within a fraction of a second.
    let apps: AppCache
    /// Token holders by token hash, while no token was revoked and no user or thing disabled
    /// or deleted since they were read (`identityGeneration`: a grant, a subscription or a
    /// membership leaves them standing).
    let holders: AccessFactCache<String, TokenHolder>

    init(store: any AppStore & TokenStore & UserStore & StatesCaching, time: TimeSource, proxyTrust: ProxyTrust) {
        self.store = store
        self.time = time
        self.proxyTrust = proxyTrust
        holders = AccessFactCache(generation: store.identityGeneration)
        apps = AppCache(lifetime: .seconds(2), generation: store.identityGeneration)
    }

    /// The app named by `appID`; `APP_NOT_FOUND` when there is none.
    func app(_ appID: String) async throws -> App {
        let now = time.now()
        if let cached = apps.app(appID, now: now) { return cached }
        let generation = store.identityGeneration.current
        guard IDSyntax.isWellFormed(appID), let app = try await store.app(id: AppID(appID)) else {
            throw KiiError(.appNotFound, "App \(appID) was not found.", context: ["appID": .string(appID)])
        }
        apps.keep(app, now: now, readAt: generation)
        return app
    }

    func caller(_ request: Request, peer: SocketAddress?, appID: String) async throws -> Caller {
        var caller = try await caller(request, appID: appID)
        caller.address = ClientAddress.of(request, peer: peer, proxyTrust: proxyTrust)
        return caller
    }

    /// An anonymous caller of the app, whatever `Authorization` says (for the login routes).
    func anonymous(_ request: Request, peer: SocketAddress?, appID: String) async throws -> Caller {
        Caller(
            app: try await app(appID), principal: .anonymous, tokenHash: nil,
            address: ClientAddress.of(request, peer: peer, proxyTrust: proxyTrust))
    }

    func caller(_ request: Request, appID: String) async throws -> Caller {
        let app = try await app(appID)
        guard let value = request.headers[.authorization], case let header = HeaderValue.trimmed(value[...]),
            !header.isEmpty
        else {
            return Caller(app: app, principal: .anonymous, tokenHash: nil)
        }
        let (scheme, credential) = HeaderValue.schemeAndCredentials(header)
        if HeaderValue.isScheme(scheme, "bearer") { return try await bearer(credential, app: app) }
        if HeaderValue.isScheme(scheme, "basic") { return try basic(credential, app: app) }
        throw wrongToken(app)
    }

    func bearer(_ token: String, app: App) async throws -> Caller {
        let hash = Secrets.sha256(token)
        let now = time.now()
        guard let holder = try await holders.value(hash, load: { try await store.tokenHolder(hash: hash) }),
            holder.token.appID == app.id,
            holder.token.isValid(at: now)
        else { throw wrongToken(app) }
        switch holder.token.principal {
        case .user(let id):
            if holder.disabled {
                throw KiiError.userDisabled(id)
            }
            if now - (holder.lastSeenAt ?? 0) > lastSeenResolution {
                try await store.touchUser(appID: app.id, id: id, at: now)
                holders.modify(hash) { $0.lastSeenAt = now }
            }
        case .thing(let id):
            if holder.disabled {
                throw KiiError.thingDisabled(id)
            }
        case .admin, .anonymous:
            break
        }
        return Caller(app: app, principal: holder.token.principal, tokenHash: hash, relay: holder.token.relay)
    }

    func basic(_ credential: String, app: App) throws -> Caller {
        guard let data = Data(base64Encoded: credential), let text = String(data: data, encoding: .utf8),
            let colon = text.firstIndex(of: ":")
        else { throw wrongToken(app) }
        let name = String(text[..<colon])
        let secret = String(text[text.index(after: colon)...])
        if name == app.clientID, Secrets.constantTimeEqual(Secrets.sha256(secret), app.clientSecretHash) {
            return Caller(app: app, principal: .admin, tokenHash: nil)
        }
        if name == app.id.rawValue {
            return Caller(app: app, principal: .anonymous, tokenHash: nil)
        }
        throw wrongToken(app)
    }

    func wrongToken(_ app: App) -> KiiError {
        KiiError(.wrongToken, "The provided token is not valid.", context: ["appID": .string(app.id.rawValue)])
    }
}
