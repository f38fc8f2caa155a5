import Foundation
import GRDB
public import TopicGateCore

extension SQLiteStore: ThingStateStore {
    public func recordState(appID: AppID, thing: ThingID, _ record: ThingStateRecord, keepSince: Int64, keepAtMost: Int)
        async throws
    {
        try await write { db in
            try db.cachedStatement(
                sql: "INSERT INTO thing_states (app_id, thing_id, state, recorded_at) VALUES (?, ?, ?, ?)"
            ).execute(arguments: [
                appID.rawValue, thing.rawValue, JSONWriter.string(.object(record.state)), record.recordedAt,
            ])
            // Retention, but never the latest state.
            try db.cachedStatement(
                sql: """
                    DELETE FROM thing_states WHERE app_id = ? AND thing_id = ? AND recorded_at < ?
                    AND sequence <> (SELECT MAX(sequence) FROM thing_states WHERE app_id = ? AND thing_id = ?)
                    """
            ).execute(arguments: [appID.rawValue, thing.rawValue, keepSince, appID.rawValue, thing.rawValue])
            // The row cap: all but the newest `keepAtMost`.
            try db.cachedStatement(
                sql: """
                    DELETE FROM thing_states WHERE app_id = ? AND thing_id = ? AND sequence <=
                        (SELECT sequence FROM thing_states WHERE app_id = ? AND thing_id = ?
                         ORDER BY sequence DESC LIMIT 1 OFFSET ?)
                    """
            ).execute(arguments: [appID.rawValue, thing.rawValue, appID.rawValue, thing.rawValue, max(1, keepAtMost)])
        }
    }

    public func latestState(appID: AppID, thing: ThingID) async throws -> ThingStateRecord? {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql:
                        "SELECT * FROM thing_states WHERE app_id = ? AND thing_id = ? ORDER BY recorded_at DESC, sequence DESC LIMIT 1"
                ),
                arguments: [appID.rawValue, thing.rawValue]
            ).flatMap(Self.stateRecord)
        }
    }

    public func stateHistory(appID: AppID, thing: ThingID, from: Int64, to: Int64, limit: Int, maximumBytes: Int)
        async throws -> (states: [ThingStateRecord], complete: Bool)
    {
        try await read { db in
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM thing_states WHERE app_id = ? AND thing_id = ? AND recorded_at BETWEEN ? AND ?
                        ORDER BY recorded_at, sequence LIMIT ?
                        """),
                arguments: [appID.rawValue, thing.rawValue, from, to, limit + 1])
            var states: [ThingStateRecord] = []
            var bytes = 0
            while let row = try rows.next() {
                let size = (row["state"] as String).utf8.count
                if states.count == limit || (!states.isEmpty && bytes + size > maximumBytes) { return (states, false) }
                bytes += size
                if let record = Self.stateRecord(row) { states.append(record) }
            }
            return (states, true)
        }
    }

    static func stateRecord(_ row: Row) -> ThingStateRecord? {
        guard let state = try? JSONReader.object(Array((row["state"] as String).utf8)) else { return nil }
        return ThingStateRecord(state: state, recordedAt: row["recorded_at"])
    }
}
