internal import PostgresNIO

/// A token's row with what its user or thing is now (found, disabled, last seen), by the token's
/// hash.
struct TokenHolderByHash: NamedStatement {
    static let sql = """
        SELECT t.token_hash, t.app_id, t.principal_kind, t.principal_id, t.expires_at, t.created_at, t.relayed_by,
            u.user_id AS user_found, u.disabled AS user_disabled, u.last_seen_at AS user_seen,
            th.thing_id AS thing_found, th.disabled AS thing_disabled
        FROM tokens t
        LEFT JOIN users u ON t.principal_kind = 'user' AND u.app_id = t.app_id AND u.user_id = t.principal_id
        LEFT JOIN things th ON t.principal_kind = 'thing' AND th.app_id = t.app_id AND th.thing_id = t.principal_id
        WHERE t.token_hash = $1
        """

    let hash: String

    func makeBindings() -> PostgresBindings { Self.bindings("\(hash)") }
}
