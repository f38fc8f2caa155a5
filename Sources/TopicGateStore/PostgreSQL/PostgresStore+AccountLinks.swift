internal import PostgresNIO
public import TopicGateCore

extension PostgresStore: AccountLinkStore {
    public func insertLink(_ link: AccountLink) async throws {
        try await write(conflict: { _ in StoredForm.linkTaken }) { connection in
            try await connection.run(
                """
                INSERT INTO account_links (app_id, provider, external_id, secret_hash, user_id, created_at,
                    secret_set_at, last_login_at)
                VALUES (\(link.appID), \(link.provider), \(link.externalID), \(link.secretHash), \(link.userID),
                    \(link.createdAt), \(link.secretSetAt), \(link.lastLoginAt))
                """)
        }
    }

    public func link(appID: AppID, provider: String, externalID: String, secretHash: String) async throws
        -> AccountLink?
    {
        try await read { connection in
            try await connection.first(
                """
                SELECT * FROM account_links
                WHERE app_id = \(appID) AND provider = \(provider) AND external_id = \(externalID)
                    AND secret_hash = \(secretHash)
                """
            ).map(Self.link)
        }
    }

    public func link(appID: AppID, provider: String, externalID: String, userID: UserID) async throws -> AccountLink? {
        try await read { connection in
            try await connection.first(
                """
                SELECT * FROM account_links
                WHERE app_id = \(appID) AND provider = \(provider) AND external_id = \(externalID) AND user_id = \(userID)
                """
            ).map(Self.link)
        }
    }

    public func links(appID: AppID, userID: UserID) async throws -> [AccountLink] {
        try await read { connection in
            try await connection.rows(
                """
                SELECT * FROM account_links WHERE app_id = \(appID) AND user_id = \(userID)
                ORDER BY created_at, provider, external_id
                """
            ).map(Self.link)
        }
    }

    public func updateLinkSecret(
        appID: AppID, userID: UserID, provider: String, externalID: String, secretHash: String, at time: UnixMillis
    ) async throws -> Bool {
        try await changesRow(
            """
            UPDATE account_links SET secret_hash = \(secretHash), secret_set_at = \(time)
            WHERE app_id = \(appID) AND user_id = \(userID) AND provider = \(provider) AND external_id = \(externalID)
            RETURNING 1
            """, conflict: { _ in StoredForm.linkTaken })
    }

    public func recordLinkLogin(appID: AppID, provider: String, externalID: String, userID: UserID, at time: UnixMillis)
        async throws
    {
        try await write { connection in
            try await connection.run(
                """
                UPDATE account_links SET last_login_at = \(time)
                WHERE app_id = \(appID) AND provider = \(provider) AND external_id = \(externalID) AND user_id = \(userID)
                """)
        }
    }

    public func deleteLink(appID: AppID, userID: UserID, provider: String, externalID: String) async throws -> Bool {
        try await changesRow(
            """
            DELETE FROM account_links
            WHERE app_id = \(appID) AND user_id = \(userID) AND provider = \(provider) AND external_id = \(externalID)
            RETURNING 1
            """)
    }

    static func link(_ row: PostgresColumns) throws -> AccountLink {
        AccountLink(
            appID: try row("app_id"), provider: try row("provider"), externalID: try row("external_id"),
            secretHash: try row("secret_hash"), userID: try row("user_id"), createdAt: try row("created_at"),
            secretSetAt: try row("secret_set_at"), lastLoginAt: try row("last_login_at"))
    }
}
