import TopicGateCore

/// Every check of a user's or a thing's password, wherever it is presented: the token
/// endpoint, onboarding, an ownership claim, a password change. Each goes through one lockout
/// key per account and the same failure budgets, reserved before the hash is computed (see
/// `AbuseGuard.begin`), so no endpoint is an unthrottled oracle for another's lock.
struct PasswordCheck: Sendable {
    /// How a refusal is answered: the token endpoint answers as Kii's OAuth endpoint does (a
    /// locked name is a 400 `invalid_grant` "The login name is locked"); other endpoints
    /// answer 429 `TOO_MANY_REQUESTS`. Both carry `Retry-After`.
    enum Style: Sendable { case oauth, api }

    /// Whose password is checked, for the lockout key and the audit trail.
    struct Account: Sendable {
        let appID: AppID
        /// The account's own key (`user:ID`, `thing:ID`) when it exists, else what was
        /// presented, normalised.
        let key: String
        /// The account's ID, when it exists.
        let subjectID: String?
        /// What the client presented, for the audit trail.
        let presented: String

        static func user(_ user: User?, appID: AppID, presented: String) -> Account {
            Account(
                appID: appID, key: user.map { "user:\($0.id.rawValue)" } ?? presented.lowercased(),
                subjectID: user?.id.rawValue, presented: presented)
        }

        static func thing(_ thing: Thing?, appID: AppID, presented: String) -> Account {
            Account(
                appID: appID, key: thing.map { "thing:\($0.id.rawValue)" } ?? presented, subjectID: thing?.id.rawValue,
                presented: presented)
        }

        /// An account that exists, named by its principal (`user:ID`, `thing:ID`).
        static func existing(_ principal: Principal, appID: AppID) -> Account {
            Account(
                appID: appID, key: principal.description, subjectID: principal.principalID,
                presented: principal.description)
        }
    }

    let abuse: AbuseGuard
    let hasher: PasswordHasher
    let audit: SecurityAudit

    /// True when `password` matches `hash` (nil: the account does not exist; the same work is
    /// done). A wrong password is counted and audited; a locked account or a spent budget is
    /// refused before any hashing.
    func verify(
        _ password: String, hash: String?, account: Account, actor: String, address: String?, style: Style
    ) async throws -> Bool {
        let lockKey = AbuseGuard.Key.account(account.appID, account.key)
        let attempt: AbuseGuard.Attempt
        do throws(AbuseGuard.Refusal) {
            attempt = try await abuse.admit(
                appID: account.appID, address: address, lockouts: [lockKey], knownAccount: hash != nil)
        } catch .budgetSpent(let wait) {
            throw Self.budgetSpent(retryAfter: wait)
        } catch .locked(let wait) {
            try await audit.record(
                .loginLocked, appID: account.appID, actor: actor, subjectID: account.subjectID,
                account: account.presented, address: address, detail: "locked for \(wait.components.seconds) s more")
            throw Self.locked(retryAfter: wait, style: style)
        } catch .busy {
            throw AbuseGuard.busy()
        } catch .unavailable {
            throw AbuseGuard.unavailable()
        }
        let matches: Bool
        do {
            if attempt.slowed { try await Task.sleep(for: AbuseGuard.slowedCheck) }
            matches = try await hasher.verify(password, hash: hash)
        } catch {
            await abuse.end(attempt, succeeded: false)
            throw error
        }
        await abuse.end(attempt, succeeded: matches)
        if !matches {
            try await audit.record(
                .loginFailed, appID: account.appID, actor: actor, subjectID: account.subjectID,
                account: account.presented,
                address: address, detail: hash == nil ? "no such account" : "wrong password")
        }
        return matches
    }

    /// The password of an existing account, presented by `caller` on an API endpoint
    /// (onboarding, an ownership claim, a password change): `WRONG_PASSWORD` with `message`
    /// when it is wrong, 429 while the account is locked or the budget is spent.
    func require(_ password: String, of principal: Principal, hash: String?, caller: Caller, _ message: String)
        async throws
    {
        guard
            try await verify(
                password, hash: hash, account: .existing(principal, appID: caller.appID),
                actor: caller.principal.description,
                address: caller.address, style: .api)
        else {
            throw Self.wrong(message, of: principal, appID: caller.appID)
        }
    }

    /// `WRONG_PASSWORD` with `message` for the password of `principal`.
    static func wrong(_ message: String, of principal: Principal, appID: AppID) -> KiiError {
        KiiError(
            .wrongPassword, message,
            context: ["appID": .string(appID.rawValue), "principalID": .string(principal.principalID)])
    }

    /// 429: the failure budget of the client address or of the app is spent.
    static func budgetSpent(retryAfter: Duration) -> KiiError {
        KiiError.tooManyRequests(
            "Too many failed logins from this address or for this app; try again later.",
            retryAfter: retryAfter)
    }

    static func locked(retryAfter: Duration, style: Style) -> KiiError {
        switch style {
        case .oauth:
            return KiiError.loginLocked(retryAfter: retryAfter)
        case .api:
            return KiiError.tooManyRequests(
                "Too many wrong passwords for this account: it is locked; try again later.",
                retryAfter: retryAfter)
        }
    }
}
