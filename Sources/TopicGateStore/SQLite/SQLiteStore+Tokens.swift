import GRDB
public import TopicGateCore

extension SQLiteStore: TokenStore {
    public func insertToken(_ token: AccessToken) async throws {
        try await write { db in try Self.insertTokenRow(db, token) }
    }

    static func insertTokenRow(_ db: Database, _ token: AccessToken) throws {
        let (kind, id) = StoredForm.columns(token.principal)
        try db.cachedStatement(
            sql: """
                INSERT INTO tokens (token_hash, app_id, principal_kind, principal_id, expires_at, created_at,
                    relayed_by)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            token.hash, token.appID.rawValue, kind, id, token.expiresAt?.rawValue, token.createdAt.rawValue,
            token.relay?.rawValue,
        ])
    }

    public func token(hash: String) async throws -> AccessToken? {
        try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM tokens WHERE token_hash = ?"), arguments: [hash])
                .flatMap(Self.accessToken)
        }
    }

    public func tokenHolder(hash: String) async throws -> TokenHolder? {
        try await readOneStatement { db in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT t.*, u.user_id AS user_found, u.disabled AS user_disabled, u.last_seen_at AS
                                user_seen,
                                th.thing_id AS thing_found, th.disabled AS thing_disabled
                            FROM tokens t
                            LEFT JOIN users u ON t.principal_kind = 'user' AND u.app_id = t.app_id AND u.user_id =
                                t.principal_id
                            LEFT JOIN things th ON t.principal_kind = 'thing' AND th.app_id = t.app_id
                                AND th.thing_id = t.principal_id
                            WHERE t.token_hash = ?
                            """),
                    arguments: [hash]),
                let token = Self.accessToken(row)
            else { return nil }
            switch token.principal {
            case .user:
                guard (row["user_found"] as String?) != nil else { return nil }
                return TokenHolder(token: token, disabled: row["user_disabled"], lastSeenAt: row["user_seen"])
            case .thing:
                guard (row["thing_found"] as String?) != nil else { return nil }
                return TokenHolder(token: token, disabled: row["thing_disabled"], lastSeenAt: nil)
            case .admin, .anonymous:
                return TokenHolder(token: token, disabled: false, lastSeenAt: nil)
            }
        }
    }

    public func revokeTokens(appID: AppID, principal: Principal, keeping: String?) async throws -> Int {
        let (kind, id) = StoredForm.columns(principal)
        return try await write { db in
            try db.cachedStatement(
                sql: """
                    DELETE FROM tokens WHERE app_id = ? AND principal_kind = ? AND principal_id = ?
                        AND token_hash IS NOT ?
                    """
            ).execute(arguments: [appID.rawValue, kind, id, keeping])
            return db.changesCount
        }
    }

    public func revokeToken(hash: String) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM tokens WHERE token_hash = ?").execute(arguments: [hash])
            return db.changesCount > 0
        }
    }

    /// A token from a row of `tokens` (nil when its principal kind is unknown).
    static func accessToken(_ row: Row) -> AccessToken? {
        guard let principal = StoredForm.principal(kind: row["principal_kind"], id: row["principal_id"]) else {
            return nil
        }
        let expiresAt: Int64? = row["expires_at"]
        let createdAt: Int64 = row["created_at"]
        let relay: String? = row["relayed_by"]
        return AccessToken(
            hash: row["token_hash"], appID: AppID(row["app_id"] as String), principal: principal,
            expiresAt: expiresAt.map { UnixMillis($0) }, createdAt: UnixMillis(createdAt),
            relay: relay.map { ThingID($0) })
    }

}
