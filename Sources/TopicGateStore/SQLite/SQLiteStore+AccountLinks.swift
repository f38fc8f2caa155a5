import GRDB
public import TopicGateCore

extension SQLiteStore: AccountLinkStore {
    public func insertLink(_ link: AccountLink) async throws {
        try await write(conflict: { _ in StoredForm.linkTaken }) { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO account_links (app_id, provider, external_id, secret_hash, user_id, created_at,
                        secret_set_at, last_login_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                link.appID.rawValue, link.provider, link.externalID, link.secretHash, link.userID.rawValue,
                link.createdAt, link.secretSetAt, link.lastLoginAt,
            ])
        }
    }

    public func link(appID: AppID, provider: String, externalID: String, secretHash: String) async throws
        -> AccountLink?
    {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM account_links WHERE app_id = ? AND provider = ? AND external_id = ? AND
                            secret_hash = ?
                        """),
                arguments: [appID.rawValue, provider, externalID, secretHash]
            ).map(Self.link)
        }
    }

    public func link(appID: AppID, provider: String, externalID: String, userID: UserID) async throws -> AccountLink? {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM account_links WHERE app_id = ? AND provider = ? AND external_id = ? AND user_id
                            = ?
                        """),
                arguments: [appID.rawValue, provider, externalID, userID.rawValue]
            ).map(Self.link)
        }
    }

    public func links(appID: AppID, userID: UserID) async throws -> [AccountLink] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql:
                        "SELECT * FROM account_links WHERE app_id = ? AND user_id = ? ORDER BY created_at, "
                        + "provider, external_id"
                ),
                arguments: [appID.rawValue, userID.rawValue]
            ).map(Self.link)
        }
    }

    public func updateLinkSecret(
        appID: AppID, userID: UserID, provider: String, externalID: String, secretHash: String, at time: UnixMillis
    ) async throws -> Bool {
        let time = time.rawValue
        return try await changesRow(
            """
            UPDATE account_links SET secret_hash = ?, secret_set_at = ?
            WHERE app_id = ? AND user_id = ? AND provider = ? AND external_id = ?
            """, [secretHash, time, appID.rawValue, userID.rawValue, provider, externalID],
            conflict: { _ in StoredForm.linkTaken })
    }

    public func recordLinkLogin(appID: AppID, provider: String, externalID: String, userID: UserID, at time: UnixMillis)
        async throws
    {
        let time = time.rawValue
        try await write { db in
            try db.cachedStatement(
                sql: """
                    UPDATE account_links SET last_login_at = ? WHERE app_id = ? AND provider = ? AND external_id = ?
                        AND user_id = ?
                    """
            ).execute(arguments: [time, appID.rawValue, provider, externalID, userID.rawValue])
        }
    }

    public func deleteLink(appID: AppID, userID: UserID, provider: String, externalID: String) async throws -> Bool {
        try await changesRow(
            "DELETE FROM account_links WHERE app_id = ? AND user_id = ? AND provider = ? AND external_id = ?",
            [appID.rawValue, userID.rawValue, provider, externalID])
    }

    static func link(_ row: Row) -> AccountLink {
        AccountLink(
            appID: AppID(row["app_id"] as String), provider: row["provider"], externalID: row["external_id"],
            secretHash: row["secret_hash"], userID: UserID(row["user_id"] as String), createdAt: row["created_at"],
            secretSetAt: row["secret_set_at"], lastLoginAt: row["last_login_at"])
    }
}
