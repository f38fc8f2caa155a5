internal import PostgresNIO
public import TopicGateCore

extension PostgresStore: AbuseRecordStore {
    public func updateAbuseRecords<Result: Sendable>(
        keys: [String], now: UnixMillis,
        _ update: @escaping @Sendable ([String: String]) -> (records: [String: StoredAbuseRecord?], result: Result)
    ) async throws -> Result {
        let keys = Array(Set(keys)).sorted()
        return try await write { connection in
            // Every key gets a row to lock (in one order, so two gateways never wait on each
            // other in a circle); a placeholder row is empty and expired.
            try await connection.run(
                """
                INSERT INTO abuse_records (key, record, expires_at) SELECT unnest(\(keys)::text[]), '', 0
                ON CONFLICT DO NOTHING
                """)
            var current: [String: String] = [:]
            for row in try await connection.rows(
                """
                SELECT key, record, expires_at FROM abuse_records WHERE key = ANY(\(keys)) ORDER BY key FOR UPDATE
                """)
            {
                let record: String = try row("record")
                if try row("expires_at", as: UnixMillis.self) >= now, !record.isEmpty {
                    current[try row("key")] = record
                }
            }
            let (records, result) = update(current)
            for (key, record) in records {
                try await connection.run(
                    """
                    UPDATE abuse_records SET record = \(record?.text ?? ""), expires_at = \(record?.expiresAt ?? 0)
                    WHERE key = \(key)
                    """)
            }
            if Int.random(in: 0..<512) == 0 {
                try await connection.run("DELETE FROM abuse_records WHERE expires_at < \(now - .seconds(60))")
            }
            return result
        }
    }
}
