internal import PostgresNIO
public import TopicGateCore

extension PostgresStore: TokenStore {
    public func insertToken(_ token: AccessToken) async throws {
        try await write("INSERT INTO tokens \(tokenRow: token)")
    }

    public func token(hash: String) async throws -> AccessToken? {
        try await read { connection in
            try await connection.first("SELECT * FROM tokens WHERE token_hash = \(hash)").flatMap(Self.accessToken)
        }
    }

    public func revokeToken(hash: String) async throws -> Bool {
        try await write { connection in
            try await connection.first("DELETE FROM tokens WHERE token_hash = \(hash) RETURNING token_hash") != nil
        }
    }

    public func tokenHolder(hash: String) async throws -> TokenHolder? {
        try await read { connection in
            guard
                let row = try await connection.first(TokenHolderByHash(hash: hash)),
                let token = try Self.accessToken(row)
            else { return nil }
            switch token.principal {
            case .user:
                guard try row("user_found", as: String?.self) != nil else { return nil }
                return TokenHolder(token: token, disabled: try row("user_disabled"), lastSeenAt: try row("user_seen"))
            case .thing:
                guard try row("thing_found", as: String?.self) != nil else { return nil }
                return TokenHolder(token: token, disabled: try row("thing_disabled"), lastSeenAt: nil)
            case .admin, .anonymous:
                return TokenHolder(token: token, disabled: false, lastSeenAt: nil)
            }
        }
    }

    public func revokeTokens(appID: AppID, principal: Principal, keeping: String?) async throws -> Int {
        let (kind, id) = StoredForm.columns(principal)
        return try await write { connection in
            try await connection.count(
                """
                DELETE FROM tokens WHERE app_id = \(appID) AND principal_kind = \(kind) AND principal_id = \(id)
                    AND token_hash IS DISTINCT FROM \(keeping) RETURNING 1
                """)
        }
    }

    /// A token from a row of `tokens` (nil when its principal kind is unknown).
    static func accessToken(_ row: PostgresColumns) throws -> AccessToken? {
        guard let principal = StoredForm.principal(kind: try row("principal_kind"), id: try row("principal_id")) else {
            return nil
        }
        return AccessToken(
            hash: try row("token_hash"), appID: try row("app_id"), principal: principal,
            expiresAt: try row("expires_at"), createdAt: try row("created_at"), relay: try row("relayed_by"))
    }
}
