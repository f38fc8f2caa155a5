internal import PostgresNIO
public import TopicGateCore

extension PostgresStore: UserStore {
    public func insertUser(_ user: User, token: AccessToken?) async throws {
        // The user and its first token in one statement: one round trip.
        let statement: PostgresQuery =
            if let token {
                "WITH inserted AS (INSERT INTO users \(userRow: user)) INSERT INTO tokens \(tokenRow: token)"
            } else {
                "INSERT INTO users \(userRow: user)"
            }
        try await write(statement, conflict: StoredForm.userConflict)
    }

    public func user(appID: AppID, id: UserID) async throws -> User? {
        try await read { connection in
            try await connection.first(UserByID(appID: appID, id: id)).map(Self.user)
        }
    }

    public func user(appID: AppID, address: LoginIdentifier) async throws -> User? {
        let query: PostgresQuery
        switch address {
        case .loginName(let name):
            query = "SELECT * FROM users WHERE app_id = \(appID) AND lower(login_name) = lower(\(name))"
        case .emailAddress(let email):
            query = "SELECT * FROM users WHERE app_id = \(appID) AND email_address = \(email)"
        case .phoneNumber(let phone):
            query = "SELECT * FROM users WHERE app_id = \(appID) AND phone_number = \(phone)"
        case .vendorThingID: return nil
        }
        return try await read { connection in try await connection.first(query).map(Self.user) }
    }

    public func updateUser(appID: AppID, id: UserID, _ change: @escaping @Sendable (inout User) throws -> Void)
        async throws -> User?
    {
        try await write(conflict: StoredForm.userConflict) { connection in
            // The row locked until the commit: a disable or another update waits for this one.
            guard
                var user = try await connection.first(
                    "SELECT * FROM users WHERE app_id = \(appID) AND user_id = \(id) FOR UPDATE" as PostgresQuery
                ).map(Self.user)
            else { return nil }
            try change(&user)
            try await connection.run(
                """
                UPDATE users SET login_name = \(user.loginName), email_address = \(user.emailAddress),
                    phone_number = \(user.phoneNumber), password_hash = \(user.passwordHash),
                    display_name = \(user.profile.displayName), country = \(user.profile.country),
                    locale = \(user.profile.locale), custom_fields = \(JSONWriter.string(.object(user.profile.customFields))),
                    disabled = \(user.disabled), modified_at = \(user.modifiedAt)
                WHERE app_id = \(user.appID) AND user_id = \(user.id)
                """)
            return user
        }
    }

    public func deleteUser(appID: AppID, id: UserID) async throws -> Bool {
        try await write { connection in try await Self.deleteUser(appID: appID, id: id, connection) }
    }

    public func deleteIdlePseudoUser(appID: AppID, id: UserID, lastSeenBefore cutoff: UnixMillis) async throws -> Bool {
        try await write { connection in
            // The row lock holds off an upgrade, a touch and a new link (its key check) until the
            // delete commits; each of them then finds no user.
            let stillIdle = try await connection.count(
                """
                SELECT 1 FROM users u
                WHERE u.app_id = \(appID) AND u.user_id = \(id) AND u.password_hash IS NULL AND u.last_seen_at < \(cutoff)
                    AND NOT EXISTS (SELECT 1 FROM account_links l WHERE l.app_id = u.app_id AND l.user_id = u.user_id)
                FOR UPDATE OF u
                """)
            guard stillIdle > 0 else { return false }
            return try await Self.deleteUser(appID: appID, id: id, connection)
        }
    }

    private static func deleteUser(appID: AppID, id: UserID, _ connection: PostgresConnection) async throws -> Bool {
        try await connection.run(
            """
            DELETE FROM thing_owners WHERE app_id = \(appID) AND owner_kind = 'group'
                AND owner_id IN (SELECT group_id FROM groups WHERE app_id = \(appID) AND owner_id = \(id))
            """)
        try await connection.run(
            "DELETE FROM thing_owners WHERE app_id = \(appID) AND owner_kind = 'user' AND owner_id = \(id)")
        try await connection.run(
            "DELETE FROM tokens WHERE app_id = \(appID) AND principal_kind = 'user' AND principal_id = \(id)")
        let ownedGroups = try await connection.rows(
            "SELECT group_id FROM groups WHERE app_id = \(appID) AND owner_id = \(id)")
        for row in ownedGroups {
            let group: GroupID = try row("group_id")
            try await deleteTopics(of: .group(group), connection, appID: appID)
        }
        try await deleteTopics(of: .user(id), connection, appID: appID)
        // Groups it owns, and its memberships, go by cascade.
        return try await connection.count(
            "DELETE FROM users WHERE app_id = \(appID) AND user_id = \(id) RETURNING 1") > 0
    }

    public func idlePseudoUsers(appID: AppID?, lastSeenBefore cutoff: UnixMillis, limit: Int) async throws -> [User] {
        let app = appID?.rawValue
        return try await read { connection in
            try await connection.rows(
                """
                SELECT * FROM users u
                WHERE u.password_hash IS NULL AND u.last_seen_at < \(cutoff) AND (\(app)::text IS NULL OR u.app_id = \(app))
                    AND NOT EXISTS (SELECT 1 FROM account_links l WHERE l.app_id = u.app_id AND l.user_id = u.user_id)
                ORDER BY u.last_seen_at LIMIT \(limit)
                """
            ).map(Self.user)
        }
    }

    public func setDisabled(appID: AppID, _ principal: Principal, disabled: Bool, at time: UnixMillis) async throws
        -> Bool
    {
        switch principal {
        case .user(let user):
            return try await changesRow(
                """
                UPDATE users SET disabled = \(disabled), modified_at = \(time)
                WHERE app_id = \(appID) AND user_id = \(user) RETURNING 1
                """)
        case .thing(let thing):
            return try await changesRow(
                """
                UPDATE things SET disabled = \(disabled), modified_at = \(time)
                WHERE app_id = \(appID) AND thing_id = \(thing) RETURNING 1
                """)
        case .admin, .anonymous: return false
        }
    }

    public func touchUser(appID: AppID, id: UserID, at time: UnixMillis) async throws {
        try await read { connection in
            try await connection.run(
                """
                UPDATE users SET last_seen_at = \(time)
                WHERE app_id = \(appID) AND user_id = \(id) AND last_seen_at < \(time)
                """)
        }
    }

    static func user(_ row: PostgresColumns) throws -> User {
        User(
            id: try row("user_id"), appID: try row("app_id"), loginName: try row("login_name"),
            emailAddress: try row("email_address"), phoneNumber: try row("phone_number"),
            passwordHash: try row("password_hash"),
            profile: UserProfile(
                displayName: try row("display_name"), country: try row("country"), locale: try row("locale"),
                customFields: try JSONReader.object(Array(try row("custom_fields", as: String.self).utf8))),
            disabled: try row("disabled"), createdAt: try row("created_at"), modifiedAt: try row("modified_at"),
            lastSeenAt: try row("last_seen_at"))
    }
}
