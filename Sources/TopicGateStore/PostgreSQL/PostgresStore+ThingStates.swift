internal import PostgresNIO
public import TopicGateCore

extension PostgresStore: ThingStateStore {
    public func recordState(
        appID: AppID, thing: ThingID, _ records: [ThingStateRecord], keepSince: UnixMillis, keepAtMost: Int
    ) async throws {
        try await write { connection in
            for record in records {
                try await connection.run(
                    """
                    INSERT INTO thing_states (app_id, thing_id, state, recorded_at, alias)
                    VALUES (\(appID), \(thing), \(JSONWriter.string(.object(record.state))), \(record.recordedAt),
                        \(record.alias))
                    """)
            }
            // Retention, but never the latest state of an alias (or the latest plain state).
            try await connection.run(
                """
                DELETE FROM thing_states WHERE app_id = \(appID) AND thing_id = \(thing) AND recorded_at < \(keepSince)
                    AND sequence NOT IN (SELECT MAX(sequence) FROM thing_states
                        WHERE app_id = \(appID) AND thing_id = \(thing) GROUP BY alias)
                """)
            // The row cap: all but the newest `keepAtMost`, and the latest of each alias.
            try await connection.run(
                """
                DELETE FROM thing_states WHERE app_id = \(appID) AND thing_id = \(thing) AND sequence <=
                    (SELECT sequence FROM thing_states WHERE app_id = \(appID) AND thing_id = \(thing)
                     ORDER BY sequence DESC LIMIT 1 OFFSET \(max(1, keepAtMost)))
                    AND sequence NOT IN (SELECT MAX(sequence) FROM thing_states
                        WHERE app_id = \(appID) AND thing_id = \(thing) GROUP BY alias)
                """)
        }
    }

    public func latestStates(appID: AppID, thing: ThingID) async throws -> [ThingStateRecord] {
        try await read { connection in
            try await connection.rows(
                """
                SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY alias
                    ORDER BY recorded_at DESC, sequence DESC) AS newest
                FROM thing_states WHERE app_id = \(appID) AND thing_id = \(thing)) AS latest
                WHERE newest = 1 ORDER BY recorded_at DESC, sequence DESC
                """
            ).compactMap(Self.stateRecord)
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

    public func stateHistory(
        appID: AppID, thing: ThingID, alias: String?, from: UnixMillis, to: UnixMillis, limit: Int, maximumBytes: Int
    ) async throws -> (states: [ThingStateRecord], complete: Bool) {
        try await read { connection in
            let rows = try await connection.rows(
                """
                SELECT * FROM thing_states
                WHERE app_id = \(appID) AND thing_id = \(thing) AND recorded_at BETWEEN \(from) AND \(to)
                    AND (\(alias)::text IS NULL OR alias = \(alias))
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

    public func aliasStates(
        appID: AppID, thing: ThingID, alias: String, from: UnixMillis, to: UnixMillis, after position: StatePosition?,
        limit: Int
    ) async throws -> [(position: StatePosition, record: ThingStateRecord)] {
        let after = position ?? StatePosition(recordedAt: UnixMillis(.min), sequence: .min)
        let lower = max(from, after.recordedAt)
        return try await read { connection in
            var states: [(position: StatePosition, record: ThingStateRecord)] = []
            for row in try await connection.rows(
                """
                SELECT sequence, state, recorded_at, alias FROM thing_states
                WHERE app_id = \(appID) AND thing_id = \(thing) AND alias = \(alias)
                    AND recorded_at BETWEEN \(lower) AND \(to)
                    AND (recorded_at, sequence) > (\(after.recordedAt), \(after.sequence))
                ORDER BY recorded_at, sequence LIMIT \(limit)
                """)
            {
                if let record = try Self.stateRecord(row) {
                    states.append(
                        (StatePosition(recordedAt: record.recordedAt, sequence: try row("sequence")), record))
                }
            }
            return states
        }
    }

    static func stateRecord(_ row: PostgresColumns) throws -> ThingStateRecord? {
        guard let state = try? JSONReader.object(Array(try row("state", as: String.self).utf8)) else { return nil }
        return ThingStateRecord(state: state, recordedAt: try row("recorded_at"), alias: try row("alias"))
    }
}
