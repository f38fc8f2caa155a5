import TopicGateCore
import TopicGateStore

/// The OAuth2 token endpoint: password grants for users (login name, `EMAIL:`, `PHONE:`) and
/// things (`VENDOR_THING_ID:`), client credentials for the admin and for anonymous app tokens.
///
/// Every failure is a 400 with `error_description`, and a failed password check says no more
/// than "wrong username or password" whether the account exists or not. A pseudo user has no
/// password, so it can never get a token here (only an account link can give it one).
///
/// Failures count against the client address's and the app's failure budgets (429 once spent)
/// and toward the lockout of the account (`PasswordCheck`): five wrong passwords lock it for
/// 30 s, then doubling, and a locked account is refused even with the right password.
struct LoginService: Sendable {
    let store: any AppStore & ThingStore & TokenStore & UserStore
    let passwords: PasswordCheck
    let tokens: TokenIssuer
    let abuse: AbuseGuard
    let audit: SecurityAudit
    let revocation: DeviceRevocation
    /// How long an admin token lives (`--admin-token-ttl`): the client credentials are an
    /// operator's, and the console signs in with them, so their tokens end by themselves.
    let adminTokenTTL: Duration

    /// The ID of the app whose client ID is `clientID`, for a token request that names no app.
    func appID(clientID: String) async throws -> String? {
        try await store.app(clientID: clientID)?.id.rawValue
    }

    func grant(app: App, request: TokenRequest, address: String?) async throws -> TokenGrant {
        switch request.grant {
        case .password(let identifier, let password):
            try await passwordGrant(app: app, identifier, password, expiresAt: request.expiresAt, address: address)
        case .clientCredentials(let clientID, let secret):
            try await clientCredentialsGrant(app: app, clientID, secret, expiresAt: request.expiresAt, address: address)
        }
    }

    /// A user's or a thing's password. The lockout key is the account the username resolves
    /// to, so `ann`, `LOGIN_NAME:ann` and every spelling of a phone number share one lock.
    func passwordGrant(
        app: App, _ identifier: LoginIdentifier, _ password: String, expiresAt: UnixMillis?, address: String?
    ) async throws -> TokenGrant {
        if case .vendorThingID(let vendorThingID) = identifier {
            let thing = try await store.thing(appID: app.id, reference: .vendorThingID(vendorThingID))
            let account = PasswordCheck.Account.thing(thing, appID: app.id, presented: identifier.description)
            guard
                try await passwords.verify(
                    password, hash: thing?.passwordHash, account: account, actor: "anonymous", address: address,
                    style: .oauth),
                let thing
            else { throw Self.wrongCredentials() }
            if thing.disabled { throw KiiError.oauth(.invalidGrant, "The thing is disabled.") }
            let token = try await tokens.issue(appID: app.id, principal: .thing(thing.id), expiresAt: expiresAt)
            return tokens.grant(id: thing.id.rawValue, token: token, expiresAt: expiresAt)
        }
        let user = try await store.user(appID: app.id, address: identifier)
        let account = PasswordCheck.Account.user(user, appID: app.id, presented: identifier.description)
        guard
            try await passwords.verify(
                password, hash: user?.passwordHash, account: account, actor: "anonymous", address: address,
                style: .oauth),
            let user
        else { throw Self.wrongCredentials() }
        if user.disabled { throw KiiError.oauth(.invalidGrant, "The user is disabled.") }
        let token = try await tokens.issue(appID: app.id, principal: .user(user.id), expiresAt: expiresAt)
        return tokens.grant(id: user.id.rawValue, token: token, expiresAt: expiresAt)
    }

    /// The admin's client ID and secret, or the app ID for an anonymous token. Wrong secrets
    /// count against the client address's failure budget only: users' wrong passwords, which
    /// spend the app's budget, can never lock the admin out.
    func clientCredentialsGrant(
        app: App, _ clientID: String, _ secret: String, expiresAt: UnixMillis?, address: String?
    ) async throws -> TokenGrant {
        if clientID != app.clientID, clientID == app.id.rawValue {
            // An anonymous app token (ebisu sends a dummy secret: the app key is no secret): a
            // budget per address, and a short life (a device takes one to onboard at once).
            try await abuse.admitAnonymousToken(address: address)
            let longest = tokens.time.now() + abuse.controls.anonymousTokenLifetime
            let expiresAt = min(expiresAt ?? longest, longest)
            let token = try await tokens.issue(appID: app.id, principal: .anonymous, expiresAt: expiresAt)
            return tokens.grant(id: app.id.rawValue, token: token, expiresAt: expiresAt)
        }
        let attempt: AbuseGuard.Attempt
        do throws(AbuseGuard.Refusal) {
            attempt = try await abuse.begin(appID: app.id, address: address, lockouts: [], appBudget: false)
        } catch .budgetSpent(let wait), .locked(let wait) {
            throw KiiError.tooManyRequests(
                "Too many failed logins from this address; try again later.", retryAfter: wait)
        } catch .busy {
            // No lockout keys here, so never busy; refused like a spent budget if it were.
            throw KiiError.tooManyRequests("Too many logins at once; try again.", retryAfter: .seconds(1))
        } catch .unavailable {
            throw AbuseGuard.unavailable()
        }
        let matches =
            clientID == app.clientID
            && Secrets.constantTimeEqual(Secrets.sha256(secret), app.clientSecretHash)
        await abuse.end(attempt, succeeded: matches)
        guard matches else {
            try await audit.record(
                .loginFailed, appID: app.id, actor: "anonymous", account: clientID, address: address,
                detail: "wrong client credentials")
            throw KiiError.oauth(.invalidClient, "The client credentials are not valid.")
        }
        // An earlier `expiresAt` the caller asked for is kept; a later one, or none, is the TTL.
        let latest = tokens.time.now() + .seconds(adminTokenTTL.components.seconds)
        let expires = min(expiresAt ?? latest, latest)
        let token = try await tokens.issue(appID: app.id, principal: .admin, expiresAt: expires)
        return tokens.grant(id: app.clientID, token: token, expiresAt: expires)
    }

    /// `DELETE …/users/{id}/tokens` by the admin: every token of the user ends, with the
    /// devices installed with them (those the admin installed for it stay).
    func revokeAll(of principal: Principal, caller: Caller) async throws {
        try caller.requireAdmin(to: "revoke another principal's tokens")
        let count = try await store.revokeTokens(appID: caller.appID, principal: principal, keeping: nil)
        try await revocation.revoke(appID: caller.appID, .installedWithOtherTokens(principal, keeping: nil))
        try await audit.record(
            .tokenRevoked, appID: caller.appID, actor: caller.principal.description,
            subjectID: principal.principalID, address: caller.address, detail: "all \(count) token(s)")
    }

    /// `POST …/oauth2/revoke` (RFC 7009): ends `token` when the caller holds it (a user or a
    /// thing its own tokens) or is the app's admin, with the devices installed with it. Whether
    /// the token existed is not told (RFC 7009 §2.2): the answer is the same either way.
    func revoke(token: String, caller: Caller) async throws {
        guard caller.principal != .anonymous else { throw caller.denied("revoke a token") }
        let hash = Secrets.sha256(token)
        guard let stored = try await store.token(hash: hash), stored.appID == caller.appID,
            caller.principal == .admin || stored.principal == caller.principal
        else { return }
        try await store.revokeToken(hash: hash)
        try await revocation.revoke(appID: caller.appID, .installedWith(token: hash))
        try await audit.record(
            .tokenRevoked, appID: caller.appID, actor: caller.principal.description,
            subjectID: stored.principal.principalID, address: caller.address, detail: "one token")
    }

    static func wrongCredentials() -> KiiError {
        KiiError.oauth(.invalidGrant, "The username or password is wrong.")
    }
}
