import PostgresNIO
public import TopicGateCore

extension PostgresStore: ThingStateStore {
    public func recordState(appID: AppID, thing: ThingID, _ record: ThingStateRecord, keepSince: Int64, keepAtMost: Int)
        async throws
    {
        try await write { connection in
            try await connection.run(
                """
                INSERT INTO thing_states (app_id, thing_id, state, recorded_at)
                VALUES (\(appID), \(thing), \(JSONWriter.string(.object(record.state))), \(record.recordedAt))
                """)
            // Retention, but never the latest state.
            try await connection.run(
                """
                DELETE FROM thing_states WHERE app_id = \(appID) AND thing_id = \(thing) AND recorded_at < \(keepSince)
                    AND sequence <> (SELECT MAX(sequence) FROM thing_states WHERE app_id = \(appID) AND thing_id = \(thing))
                """)
            // The row cap: all but the newest `keepAtMost`.
            try await connection.run(
                """
                DELETE FROM thing_states WHERE app_id = \(appID) AND thing_id = \(thing) AND sequence <=
                    (SELECT sequence FROM thing_states WHERE app_id = \(appID) AND thing_id = \(thing)
                     ORDER BY sequence DESC LIMIT 1 OFFSET \(max(1, keepAtMost)))
                """)
        }
    }

    public func latestState(appID: AppID, thing: ThingID) async throws -> ThingStateRecord? {
        try await read { connection in
            try await connection.first(
                """
                SELECT * FROM thing_states WHERE app_id = \(appID) AND thing_id = \(thing)
                ORDER BY recorded_at DESC, sequence DESC LIMIT 1
                """
            ).flatMap(Self.stateRecord)
        }
    }

    public func stateHistory(appID: AppID, thing: ThingID, from: Int64, to: Int64, limit: Int, maximumBytes: Int)
        async throws -> (states: [ThingStateRecord], complete: Bool)
    {
        try await read { connection in
            let rows = try await connection.rows(
                """
                SELECT * FROM thing_states
                WHERE app_id = \(appID) AND thing_id = \(thing) AND recorded_at BETWEEN \(from) AND \(to)
                ORDER BY recorded_at, sequence LIMIT \(limit + 1)
                """)
            var states: [ThingStateRecord] = []
            var bytes = 0
            for row in rows {
                let size = try row("state", as: String.self).utf8.count
                if states.count == limit || (!states.isEmpty && bytes + size > maximumBytes) { return (states, false) }
                bytes += size
                if let record = try Self.stateRecord(row) { states.append(record) }
            }
            return (states, true)
        }
    }

    static func stateRecord(_ row: PostgresColumns) throws -> ThingStateRecord? {
        guard let state = try? JSONReader.object(Array(try row("state", as: String.self).utf8)) else { return nil }
        return ThingStateRecord(state: state, recordedAt: try row("recorded_at"))
    }
}
