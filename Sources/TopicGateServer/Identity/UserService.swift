import TopicGateCore
import TopicGateStore

/// Users: pseudo users, registration, reading, updating (including the upgrade of a pseudo
/// user to a normal one), password changes and deletion.
struct UserService: Sendable {
    let store: any QueryStore & TokenStore & UserStore
    /// Passwords, tokens, revocation, audit, sign-up limits, disabling, the topic cache.
    let accounts: AccountServices
    /// Users as `read` serves them (`users/me`), while no change to any user's record (but its
    /// last-seen time) or to access committed since they were read; nothing on a shared store.
    let readable: AccessFactCache<String, User>

    /// A user with no password whose access token is its identity. Returns the user and token.
    func createPseudoUser(caller: Caller, fields: UserFields) async throws -> (User, String) {
        try await accounts.admitSignup(caller)
        guard !fields.hasIdentity else {
            throw KiiError.invalidInput(
                "A pseudo user has no login name, email address or phone number; send a password to register a "
                    + "normal user."
            )
        }
        let now = accounts.time.now()
        let user = User(
            id: UserID(Secrets.userID()), appID: caller.appID, profile: fields.profile, createdAt: now, modifiedAt: now)
        let (token, stored) = accounts.tokens.make(appID: caller.appID, principal: .user(user.id))
        try await store.insertUser(user, token: stored)
        return (user, token)
    }

    /// A normal user: an identity and a password. With `authorize`, also a token.
    func register(caller: Caller, fields: UserFields, authorize: Bool) async throws -> (User, String?) {
        try await accounts.admitSignup(caller)
        guard fields.hasIdentity else {
            throw KiiError.invalidInput(
                "Registration needs a loginName, emailAddress or phoneNumber.", field: "loginName")
        }
        guard let password = fields.password else {
            throw KiiError.invalidInput("Registration needs a password.", field: "password")
        }
        let now = accounts.time.now()
        let user = User(
            id: UserID(Secrets.userID()), appID: caller.appID, loginName: fields.loginName,
            emailAddress: fields.emailAddress, phoneNumber: fields.phoneNumber,
            passwordHash: try await accounts.newPasswords.hash(password, for: .user), profile: fields.profile,
            createdAt: now,
            modifiedAt: now)
        let issued = authorize ? accounts.tokens.make(appID: caller.appID, principal: .user(user.id)) : nil
        try await store.insertUser(user, token: issued?.stored)
        return (user, issued?.token)
    }

    /// The user named by `reference`, as the caller may see it: all fields for the user itself
    /// and the admin, the public ones for other authenticated callers.
    func read(caller: Caller, reference: UserReference) async throws -> JSONValue {
        try caller.requireAuthenticated(to: "read users")
        let user = try await kept(caller: caller, reference: reference)
        return isSelfOrAdmin(caller, user.id) ? user.json : user.publicJSON
    }

    /// The user a path names, from the users kept in memory when the path names it by ID or
    /// `me` (for reading it or a topic in its scope, never to write it back); `USER_NOT_FOUND`
    /// when there is none.
    func kept(caller: Caller, reference: UserReference) async throws -> User {
        let id: UserID? =
            switch reference {
            case .me: caller.principal.userID
            case .id(let id): id
            case .address: nil
            }
        guard let id else { return try await resolve(caller: caller, reference: reference) }
        let user = try await readable.value(caller.appID.rawValue + "\n" + id.rawValue) {
            try await resolve(caller: caller, reference: reference)
        }
        guard let user else { throw KiiError.userNotFound(appID: caller.appID, field: "userID", value: id.rawValue) }
        return user
    }

    /// Updates profile fields; with a password, upgrades a pseudo user to a normal user. The
    /// fields are laid over the user as it is when the write runs, so that a disable or a
    /// password change committed while this request ran stands.
    func update(caller: Caller, reference: UserReference, fields: UserFields) async throws -> User {
        let found = try await resolveForChange(caller: caller, reference: reference, to: "update this user")
        try Self.requireUpgradable(found, fields)
        var upgrade: String?
        if let password = fields.password { upgrade = try await accounts.newPasswords.hash(password, for: .user) }
        let modifiedAt = accounts.time.now()
        let updated = try await store.updateUser(appID: caller.appID, id: found.id) { [upgrade] user in
            // Checked again on the row as it is now: another request may have upgraded it.
            try Self.requireUpgradable(user, fields)
            if let upgrade { user.passwordHash = upgrade }
            if let loginName = fields.loginName { user.loginName = loginName }
            if let emailAddress = fields.emailAddress { user.emailAddress = emailAddress }
            if let phoneNumber = fields.phoneNumber { user.phoneNumber = phoneNumber }
            user.profile = user.profile.merging(fields.profile)
            user.modifiedAt = modifiedAt
        }
        guard let updated else {
            throw KiiError.userNotFound(appID: caller.appID, field: "userID", value: found.id.rawValue)
        }
        return updated
    }

    /// A password in `fields` upgrades a pseudo user (with an identity in the same fields); a
    /// pseudo user gets an identity only with a password.
    private static func requireUpgradable(_ user: User, _ fields: UserFields) throws(KiiError) {
        if fields.password != nil {
            guard user.isPseudo else {
                throw KiiError.invalidInput(
                    "This user has a password already; change it with PUT …/users/me/password.", field: "password")
            }
            guard fields.hasIdentity else {
                throw KiiError.invalidInput(
                    "Upgrading a pseudo user needs a loginName, emailAddress or phoneNumber.", field: "loginName")
            }
        } else if user.isPseudo && fields.hasIdentity {
            throw KiiError.invalidInput(
                "A pseudo user gets a login name, email address or phone number together with a password.",
                field: "password")
        }
    }

    /// `POST …/users/query` (the admin): a page of the app's users matching Kii's clauses.
    func query(caller: Caller, request: QueryRequest) async throws -> JSONValue {
        try caller.requireAdmin(to: "query users; only the admin may")
        let page = try await store.queryUsers(appID: caller.appID, request)
        var answer: [String: JSONValue] = [
            "queryDescription": .string("WHERE \(request.clause.summary)"), "results": .array(page.users.map(\.json)),
        ]
        if page.more {
            answer["nextPaginationKey"] = .string(String(try QuerySQL.offset(request.paginationKey) + request.limit))
        }
        return .object(answer)
    }

    /// Changes the password and revokes every other token of the user. The user must give
    /// its old password; the admin need not. Of two changes from the same old password, the
    /// one that commits second is told the old password is wrong (it is no longer the password).
    func changePassword(caller: Caller, reference: UserReference, request: PasswordChangeRequest) async throws {
        let found = try await resolveForChange(caller: caller, reference: reference, to: "change this user's password")
        guard !found.isPseudo else {
            throw KiiError(
                .invalidAccountStatus,
                "A pseudo user has no password; upgrade it by giving it an identity and a password.")
        }
        let message = "The old password is wrong."
        // The hash the old password was checked against (nil: the admin's change, unchecked).
        var checked: String?
        if caller.principal != .admin {
            guard let oldPassword = request.oldPassword else {
                throw KiiError.invalidInput("'oldPassword' is required.", field: "oldPassword")
            }
            try await accounts.passwords.require(
                oldPassword, of: .user(found.id), hash: found.passwordHash, caller: caller, message)
            checked = found.passwordHash
        }
        let hash = try await accounts.newPasswords.hash(request.newPassword, for: .user, field: "newPassword")
        let modifiedAt = accounts.time.now()
        let appID = caller.appID
        let updated = try await store.updateUser(appID: appID, id: found.id) { [checked] user in
            if let checked, user.passwordHash != checked {
                throw PasswordCheck.wrong(message, of: .user(user.id), appID: appID)
            }
            user.passwordHash = hash
            user.modifiedAt = modifiedAt
        }
        guard updated != nil else {
            throw KiiError.userNotFound(appID: appID, field: "userID", value: found.id.rawValue)
        }
        try await accounts.revokeOldCredentials(of: .user(found.id), caller: caller) {
            .installedWithOtherTokens($0, keeping: $1)
        }
    }

    /// `PUT …/users/{id}/status` by the admin: a disabled user cannot log in or use its tokens,
    /// and its devices are revoked at once.
    func setDisabled(caller: Caller, reference: UserReference, request: StatusChangeRequest) async throws {
        try caller.requireAdmin(to: "change a user's status")
        let user = try await resolve(caller: caller, reference: reference)
        try await accounts.status.change(.user(user.id), request, caller: caller)
    }

    /// Sign-ups by anyone but the admin count against the client address's sign-up budget.

    /// Deletes the user with its tokens, memberships, ownerships and owned groups.
    func delete(caller: Caller, reference: UserReference) async throws {
        let user = try await resolveForChange(caller: caller, reference: reference, to: "delete this user")
        try await accounts.revocation.revoke(appID: caller.appID, .principal(.user(user.id)))
        _ = try await store.deleteUser(appID: caller.appID, id: user.id)
    }

    func isSelfOrAdmin(_ caller: Caller, _ id: UserID) -> Bool {
        caller.principal == .admin || caller.principal == .user(id)
    }

    /// The user a change names, for the user itself or the admin. Anyone else is refused the
    /// same way whether the user exists or not (the reference is checked before it is
    /// resolved), so that a change can never tell who exists; only the admin gets
    /// `USER_NOT_FOUND`.
    func resolveForChange(caller: Caller, reference: UserReference, to what: String) async throws -> User {
        if caller.principal == .admin { return try await resolve(caller: caller, reference: reference) }
        guard let own = caller.principal.userID else { throw caller.denied(what) }
        switch reference {
        case .me:
            break
        case .id(let id):
            guard id == own else { throw caller.denied(what) }
        case .address(let address):
            guard try await store.user(appID: caller.appID, address: address)?.id == own else {
                throw caller.denied(what)
            }
        }
        return try await resolve(caller: caller, reference: .me)
    }

    /// The user a path names; `USER_NOT_FOUND` when there is none.
    func resolve(caller: Caller, reference: UserReference) async throws -> User {
        let found: User?
        let (field, value): (String, String)
        switch reference {
        case .me:
            let id = try caller.requireUser(to: "use 'me' without being a user")
            found = try await store.user(appID: caller.appID, id: id)
            (field, value) = ("userID", id.rawValue)
        case .id(let id):
            found = try await store.user(appID: caller.appID, id: id)
            (field, value) = ("userID", id.rawValue)
        case .address(let address):
            found = try await store.user(appID: caller.appID, address: address)
            (field, value) = ("address", "\(address)")
        }
        guard let found else { throw KiiError.userNotFound(appID: caller.appID, field: field, value: value) }
        return found
    }
}
