import TopicGateCore
import TopicGateStore

/// Account links, for device migration: a user links (provider, external ID, secret), and a
/// new device that presents the same three gets a fresh token for the same user. The external
/// ID is no proof of identity (it is stable and may be seen by others); only the secret is,
/// so it must be long and random, is stored only as its SHA-256, and wrong guesses lock the
/// external ID and the client address out, exponentially longer each time.
struct LinkService: Sendable {
    let store: any AccountLinkStore & UserStore
    let tokens: TokenIssuer
    let time: TimeSource
    let abuse: AbuseGuard
    let audit: SecurityAudit

    /// A link and whether it was made by this call (201) or existed already (200).
    struct Outcome {
        let link: AccountLink
        let created: Bool
    }

    /// Find-or-insert: links the pair to the caller; repeating it is harmless; a different
    /// secret needs `rotate` with the old one.
    ///
    /// Links are per user: another user's link of the same external ID (a squatter who knew
    /// it; external IDs are not secret) never blocks the caller and is never revealed. Only
    /// the same external ID *and* secret linked to another user is refused (409
    /// `LINK_ALREADY_EXISTS`, without saying whose): only someone who has the secret learns it.
    func link(caller: Caller, reference: UserReference, request: AccountLinkRequest) async throws -> Outcome {
        let address = caller.address
        let userID = try caller.requireUser(to: "link an account to a user")
        if case .id(let id) = reference, id != userID { throw caller.denied("link an account to another user") }
        if case .address = reference { throw caller.denied("link an account to another user") }
        let account = "\(request.provider):\(request.externalID)"
        let actor = caller.principal.description
        let hash = Secrets.sha256(request.secret)
        func refused() async throws -> KiiError {
            try await audit.record(
                .linkRefused, appID: caller.appID, actor: actor, subjectID: userID.rawValue,
                account: account, address: address, detail: "the same secret is linked to another user")
            return KiiError(.linkAlreadyExists, "These credentials are already linked to another user.")
        }
        for _ in 0..<2 {
            if let own = try await store.link(
                appID: caller.appID, provider: request.provider, externalID: request.externalID, userID: userID)
            {
                if Secrets.constantTimeEqual(own.secretHash, hash) {
                    try await audit.record(
                        .linkRepeated, appID: caller.appID, actor: actor, subjectID: userID.rawValue,
                        account: account, address: address)
                    return Outcome(link: own, created: false)
                }
                return try await rotate(own, to: hash, request: request, caller: caller, address: address)
            }
            let now = time.now()
            let link = AccountLink(
                appID: caller.appID, provider: request.provider, externalID: request.externalID, secretHash: hash,
                userID: userID, createdAt: now)
            do {
                try await store.insertLink(link)
            } catch let error as KiiError where error.code == .linkAlreadyExists {
                // The same secret is another user's, or this user linked the pair meanwhile
                // (then judge again against that link).
                let holder = try await store.link(
                    appID: caller.appID, provider: request.provider, externalID: request.externalID, secretHash: hash)
                if let holder, holder.userID != userID { throw try await refused() }
                continue
            }
            try await audit.record(
                .linkCreated, appID: caller.appID, actor: actor, subjectID: userID.rawValue,
                account: account, address: address)
            return Outcome(link: link, created: true)
        }
        throw try await refused()
    }

    /// Replaces the secret of the caller's own link, given the old one.
    func rotate(
        _ existing: AccountLink, to hash: String, request: AccountLinkRequest, caller: Caller, address: String?
    ) async throws -> Outcome {
        let account = "\(request.provider):\(request.externalID)"
        let actor = caller.principal.description
        guard request.rotate, let oldSecret = request.oldSecret else {
            try await audit.record(
                .linkRefused, appID: caller.appID, actor: actor, subjectID: existing.userID.rawValue,
                account: account, address: address, detail: "different secret without rotate")
            throw KiiError(
                .linkSecretMismatch,
                "This external ID is linked to you with another secret; to replace it, send 'rotate': true and "
                    + "'oldSecret'."
            )
        }
        guard Secrets.constantTimeEqual(existing.secretHash, Secrets.sha256(oldSecret)) else {
            try await audit.record(
                .linkRefused, appID: caller.appID, actor: actor, subjectID: existing.userID.rawValue,
                account: account, address: address, detail: "rotation with a wrong old secret")
            throw KiiError(
                .linkSecretMismatch, "'oldSecret' is not the secret linked until now.", context: ["field": "oldSecret"])
        }
        let now = time.now()
        do {
            _ = try await store.updateLinkSecret(
                appID: caller.appID, userID: existing.userID, provider: existing.provider,
                externalID: existing.externalID,
                secretHash: hash, at: now)
        } catch let error as KiiError where error.code == .linkAlreadyExists {
            try await audit.record(
                .linkRefused, appID: caller.appID, actor: actor, subjectID: existing.userID.rawValue,
                account: account, address: address, detail: "the new secret is linked to another user")
            throw error
        }
        try await audit.record(
            .linkRotated, appID: caller.appID, actor: actor, subjectID: existing.userID.rawValue,
            account: account, address: address)
        var rotated = existing
        rotated.secretHash = hash
        rotated.secretSetAt = now
        return Outcome(link: rotated, created: false)
    }

    /// A fresh token for the user linked to the pair: the token endpoint's response. Failures
    /// say no more than "wrong", whether the pair exists or not.
    func login(app: App, request: AccountLinkRequest, address: String?) async throws -> TokenGrant {
        let expiresAt = request.expiresAt
        let account = "\(request.provider):\(request.externalID)"
        let pairKey = AbuseGuard.Key.link(app.id, provider: request.provider, externalID: request.externalID)
        var lockouts = [pairKey]
        if let address { lockouts.append(.linkLoginsFromAddress(AddressGroup.key(address))) }
        let attempt: AbuseGuard.Attempt
        do throws(AbuseGuard.Refusal) {
            attempt = try await abuse.admit(appID: app.id, address: address, lockouts: lockouts)
        } catch .budgetSpent(let wait) {
            throw PasswordCheck.budgetSpent(retryAfter: wait)
        } catch .locked(let wait) {
            try await audit.record(
                .linkLoginLocked, appID: app.id, actor: "anonymous", account: account, address: address,
                detail: "locked for \(wait.components.seconds) s more")
            throw KiiError.loginLocked(retryAfter: wait)
        } catch .busy {
            throw AbuseGuard.busy()
        } catch .unavailable {
            throw AbuseGuard.unavailable()
        }
        let link: AccountLink?
        let user: User?
        do {
            // Found by the secret's hash: the secret picks the link among those of the pair.
            link = try await store.link(
                appID: app.id, provider: request.provider, externalID: request.externalID,
                secretHash: Secrets.sha256(request.secret))
            user = if let link { try await store.user(appID: app.id, id: link.userID) } else { nil }
        } catch {
            await abuse.end(attempt, succeeded: false)
            throw error
        }
        await abuse.end(attempt, succeeded: user != nil)
        guard let link, let user else {
            try await audit.record(
                .linkLoginFailed, appID: app.id, actor: "anonymous", subjectID: link?.userID.rawValue,
                account: account, address: address, detail: "no link with this secret")
            throw KiiError.oauth(.invalidGrant, "The external ID or secret is wrong.")
        }
        if user.disabled { throw KiiError.oauth(.invalidGrant, "The user is disabled.") }
        let token = try await tokens.issue(appID: app.id, principal: .user(user.id), expiresAt: expiresAt)
        let now = time.now()
        try await store.recordLinkLogin(
            appID: app.id, provider: link.provider, externalID: link.externalID, userID: user.id, at: now)
        try await store.touchUser(appID: app.id, id: user.id, at: now)
        try await audit.record(
            .linkLogin, appID: app.id, actor: "anonymous", subjectID: user.id.rawValue, account: account,
            address: address)
        return tokens.grant(id: user.id.rawValue, token: token, expiresAt: expiresAt)
    }

    /// The links of a user, for the user itself or the admin.
    func links(caller: Caller, reference: UserReference) async throws -> [AccountLink] {
        let userID = try owner(caller: caller, reference: reference, to: "list this user's links")
        return try await store.links(appID: caller.appID, userID: userID)
    }

    /// Removes a link of a user (the user itself or the admin); `LINK_NOT_FOUND` when none.
    func unlink(caller: Caller, reference: UserReference, provider: String, externalID: String) async throws {
        let userID = try owner(caller: caller, reference: reference, to: "remove this user's links")
        guard
            try await store.deleteLink(appID: caller.appID, userID: userID, provider: provider, externalID: externalID)
        else {
            throw KiiError(.linkNotFound, "The user has no such link.", context: ["provider": .string(provider)])
        }
        try await audit.record(
            .linkDeleted, appID: caller.appID, actor: caller.principal.description,
            subjectID: userID.rawValue, account: "\(provider):\(externalID)", address: caller.address)
    }

    func owner(caller: Caller, reference: UserReference, to what: String) throws(KiiError) -> UserID {
        switch reference {
        case .me: return try caller.requireUser(to: what)
        case .id(let id):
            guard caller.principal == .admin || caller.principal == .user(id) else { throw caller.denied(what) }
            return id
        case .address: throw caller.denied(what)
        }
    }
}
