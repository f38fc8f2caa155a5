import GRDB
public import TopicGateCore

extension SQLiteStore: UserStore {
    public func insertUser(_ user: User, token: AccessToken?) async throws {
        try await write(conflict: StoredForm.userConflict) { db in
            try Self.insertUserRow(db, user)
            if let token { try Self.insertTokenRow(db, token) }
        }
    }

    static func insertUserRow(_ db: Database, _ user: User) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO users (app_id, user_id, login_name, email_address, phone_number, password_hash,
                    display_name, country, locale, custom_fields, disabled, created_at, modified_at, last_seen_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            user.appID.rawValue, user.id.rawValue, user.loginName, user.emailAddress, user.phoneNumber,
            user.passwordHash, user.profile.displayName, user.profile.country, user.profile.locale,
            JSONWriter.string(.object(user.profile.customFields)), user.disabled, user.createdAt,
            user.modifiedAt, user.lastSeenAt,
        ])
    }

    public func user(appID: AppID, id: UserID) async throws -> User? {
        try await readOneStatement { db in try Self.user(db, appID: appID, id: id) }
    }

    static func user(_ db: Database, appID: AppID, id: UserID) throws -> User? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM users WHERE app_id = ? AND user_id = ?"),
            arguments: [appID.rawValue, id.rawValue]
        ).map(Self.user)
    }

    public func user(appID: AppID, address: LoginIdentifier) async throws -> User? {
        let (column, value): (String, String)
        switch address {
        case .loginName(let name): (column, value) = ("login_name COLLATE NOCASE", name)
        case .emailAddress(let email): (column, value) = ("email_address", email)
        case .phoneNumber(let phone): (column, value) = ("phone_number", phone)
        case .vendorThingID: return nil
        }
        return try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM users WHERE app_id = ? AND \(column) = ?", arguments: [appID.rawValue, value]
            ).map(Self.user)
        }
    }

    public func updateUser(appID: AppID, id: UserID, _ change: @escaping @Sendable (inout User) throws -> Void)
        async throws -> User?
    {
        try await write(conflict: StoredForm.userConflict) { db in
            // Read inside the write transaction: no other write commits between this read and the
            // update.
            guard var user = try Self.user(db, appID: appID, id: id) else { return nil }
            try change(&user)
            try db.cachedStatement(
                sql: """
                    UPDATE users SET login_name = ?, email_address = ?, phone_number = ?, password_hash = ?,
                        display_name = ?, country = ?, locale = ?, custom_fields = ?, disabled = ?, modified_at = ?
                    WHERE app_id = ? AND user_id = ?
                    """
            ).execute(arguments: [
                user.loginName, user.emailAddress, user.phoneNumber, user.passwordHash, user.profile.displayName,
                user.profile.country, user.profile.locale, JSONWriter.string(.object(user.profile.customFields)),
                user.disabled, user.modifiedAt, user.appID.rawValue, user.id.rawValue,
            ])
            return user
        }
    }

    public func deleteUser(appID: AppID, id: UserID) async throws -> Bool {
        // Its topics and every entry naming it are gone.
        defer { topicsChanged(.all) }
        return try await write { db in try Self.deleteUser(appID: appID, id: id, db) }
    }

    public func deleteIdlePseudoUser(appID: AppID, id: UserID, lastSeenBefore cutoff: UnixMillis) async throws -> Bool {
        defer { topicsChanged(.all) }
        return try await write { db in
            let stillIdle =
                try Bool.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT EXISTS (SELECT 1 FROM users u
                                WHERE u.app_id = ? AND u.user_id = ? AND u.password_hash IS NULL AND u.last_seen_at < ?
                                    AND NOT EXISTS (SELECT 1 FROM account_links l WHERE l.app_id = u.app_id
                                        AND l.user_id = u.user_id))
                            """),
                    arguments: [appID.rawValue, id.rawValue, cutoff.rawValue]) ?? false
            guard stillIdle else { return false }
            return try Self.deleteUser(appID: appID, id: id, db)
        }
    }

    private static func deleteUser(appID: AppID, id: UserID, _ db: Database) throws -> Bool {
        let app = appID.rawValue
        let user = id.rawValue
        try db.cachedStatement(
            sql: """
                DELETE FROM thing_owners WHERE app_id = ? AND owner_kind = 'group'
                    AND owner_id IN (SELECT group_id FROM groups WHERE app_id = ? AND owner_id = ?)
                """
        ).execute(arguments: [app, app, user])
        try db.cachedStatement(
            sql: "DELETE FROM thing_owners WHERE app_id = ? AND owner_kind = 'user' AND owner_id = ?"
        ).execute(arguments: [app, user])
        try db.cachedStatement(
            sql: "DELETE FROM tokens WHERE app_id = ? AND principal_kind = 'user' AND principal_id = ?"
        ).execute(arguments: [app, user])
        let ownedGroups = try String.fetchAll(
            db.cachedStatement(sql: "SELECT group_id FROM groups WHERE app_id = ? AND owner_id = ?"),
            arguments: [app, user])
        for group in ownedGroups.map(GroupID.init(rawValue:)) {
            try deleteTopics(of: .group(group), db, appID: app)
        }
        try deleteTopics(of: .user(id), db, appID: app)
        // Groups it owns, and its memberships, go by cascade.
        try db.cachedStatement(sql: "DELETE FROM users WHERE app_id = ? AND user_id = ?").execute(arguments: [
            app, user,
        ])
        return db.changesCount > 0
    }

    public func idlePseudoUsers(appID: AppID?, lastSeenBefore cutoff: UnixMillis, limit: Int) async throws -> [User] {
        let cutoff = cutoff.rawValue
        return try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM users u
                        WHERE u.password_hash IS NULL AND u.last_seen_at < ? AND (? IS NULL OR u.app_id = ?)
                            AND NOT EXISTS (SELECT 1 FROM account_links l WHERE l.app_id = u.app_id AND l.user_id =
                                u.user_id)
                        ORDER BY u.last_seen_at LIMIT ?
                        """),
                arguments: [cutoff, appID?.rawValue, appID?.rawValue, limit]
            ).map(Self.user)
        }
    }

    public func setDisabled(appID: AppID, _ principal: Principal, disabled: Bool, at time: UnixMillis) async throws
        -> Bool
    {
        let time = time.rawValue
        let (table, column, id): (String, String, String)
        switch principal {
        case .user(let user): (table, column, id) = ("users", "user_id", user.rawValue)
        case .thing(let thing): (table, column, id) = ("things", "thing_id", thing.rawValue)
        case .admin, .anonymous: return false
        }
        return try await changesRow(
            "UPDATE \(table) SET disabled = ?, modified_at = ? WHERE app_id = ? AND \(column) = ?",
            [disabled, time, appID.rawValue, id])
    }

    public func touchUser(appID: AppID, id: UserID, at time: UnixMillis) async throws {
        let time = time.rawValue
        try await write { db in
            try db.cachedStatement(
                sql: "UPDATE users SET last_seen_at = ? WHERE app_id = ? AND user_id = ? AND last_seen_at < ?"
            ).execute(arguments: [time, appID.rawValue, id.rawValue, time])
        }
    }

    static func user(_ row: Row) throws -> User {
        User(
            id: UserID(row["user_id"] as String), appID: AppID(row["app_id"] as String),
            loginName: row["login_name"], emailAddress: row["email_address"], phoneNumber: row["phone_number"],
            passwordHash: row["password_hash"],
            profile: UserProfile(
                displayName: row["display_name"], country: row["country"], locale: row["locale"],
                customFields: try JSONReader.object(Array((row["custom_fields"] as String).utf8))),
            disabled: row["disabled"], createdAt: row["created_at"], modifiedAt: row["modified_at"],
            lastSeenAt: row["last_seen_at"])
    }
}
