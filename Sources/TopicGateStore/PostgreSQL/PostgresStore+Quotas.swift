internal import PostgresNIO
import TopicGateCore

extension PostgresStore {
    /// Holds, until its transaction ends, the lock of `principal`'s `quota` in the app, so that
    /// the writes counted against one quota run one after another on every gateway, each counting
    /// what the one before it committed (a count alone, in PostgreSQL's read committed, misses
    /// what a concurrent transaction has not committed yet). Take it before counting.
    static func lockQuota(_ connection: PostgresConnection, _ quota: String, _ appID: AppID, _ principal: Principal)
        async throws
    {
        let (kind, id) = StoredForm.columns(principal)
        let key = [quota, appID.rawValue, kind, id].joined(separator: "\n")
        try await connection.run("SELECT pg_advisory_xact_lock(hashtextextended(\(key), 0))")
    }
}
