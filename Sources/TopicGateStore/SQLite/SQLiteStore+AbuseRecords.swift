import GRDB
public import TopicGateCore

extension SQLiteStore: AbuseRecordStore {
    public func updateAbuseRecords<Result: Sendable>(
        keys: [String], now: UnixMillis,
        _ update: @escaping @Sendable ([String: String]) -> (records: [String: StoredAbuseRecord?], result: Result)
    ) async throws -> Result {
        let now = now.rawValue
        return try await write { db in
            var current: [String: String] = [:]
            for key in Set(keys) {
                if let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT record FROM abuse_records WHERE key = ? AND expires_at >= ?"),
                    arguments: [key, now])
                {
                    current[key] = row["record"]
                }
            }
            let (records, result) = update(current)
            for (key, record) in records {
                if let record {
                    try db.cachedStatement(
                        sql: "INSERT OR REPLACE INTO abuse_records (key, record, expires_at) VALUES (?, ?, ?)"
                    ).execute(arguments: [key, record.text, record.expiresAt])
                } else {
                    try db.cachedStatement(sql: "DELETE FROM abuse_records WHERE key = ?").execute(arguments: [key])
                }
            }
            if Int.random(in: 0..<512) == 0 {
                try db.cachedStatement(sql: "DELETE FROM abuse_records WHERE expires_at < ?").execute(arguments: [now])
            }
            return result
        }
    }
}
