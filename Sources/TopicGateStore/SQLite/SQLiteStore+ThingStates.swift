import Foundation
import GRDB
public import TopicGateCore

extension SQLiteStore: ThingStateStore {
    public func recordState(
        appID: AppID, thing: ThingID, _ records: [ThingStateRecord], keepSince: UnixMillis, keepAtMost: Int
    ) async throws {
        let keepSince = keepSince.rawValue
        try await write { db in
            for record in records {
                try db.cachedStatement(
                    sql: "INSERT INTO thing_states (app_id, thing_id, state, recorded_at, alias) VALUES (?, ?, ?, ?, ?)"
                ).execute(arguments: [
                    appID.rawValue, thing.rawValue, JSONWriter.string(.object(record.state)),
                    record.recordedAt.rawValue,
                    record.alias,
                ])
            }
            // Retention, but never the latest state of an alias (or the latest plain state).
            try db.cachedStatement(
                sql: """
                    DELETE FROM thing_states WHERE app_id = ? AND thing_id = ? AND recorded_at < ?
                    AND sequence NOT IN (SELECT MAX(sequence) FROM thing_states WHERE app_id = ? AND thing_id = ?
                        GROUP BY alias)
                    """
            ).execute(arguments: [appID.rawValue, thing.rawValue, keepSince, appID.rawValue, thing.rawValue])
            // The row cap: all but the newest `keepAtMost`, and the latest of each alias.
            try db.cachedStatement(
                sql: """
                    DELETE FROM thing_states WHERE app_id = ? AND thing_id = ? AND sequence <=
                        (SELECT sequence FROM thing_states WHERE app_id = ? AND thing_id = ?
                         ORDER BY sequence DESC LIMIT 1 OFFSET ?)
                    AND sequence NOT IN (SELECT MAX(sequence) FROM thing_states WHERE app_id = ? AND thing_id = ?
                        GROUP BY alias)
                    """
            ).execute(arguments: [
                appID.rawValue, thing.rawValue, appID.rawValue, thing.rawValue, max(1, keepAtMost), appID.rawValue,
                thing.rawValue,
            ])
        }
    }

    public func latestStates(appID: AppID, thing: ThingID) async throws -> [ThingStateRecord] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY alias
                            ORDER BY recorded_at DESC, sequence DESC) AS newest
                        FROM thing_states WHERE app_id = ? AND thing_id = ?)
                        WHERE newest = 1 ORDER BY recorded_at DESC, sequence DESC
                        """),
                arguments: [appID.rawValue, thing.rawValue]
            ).compactMap(Self.stateRecord)
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

    public func stateHistory(
        appID: AppID, thing: ThingID, alias: String?, from: UnixMillis, to: UnixMillis, limit: Int, maximumBytes: Int
    ) async throws -> (states: [ThingStateRecord], complete: Bool) {
        let from = from.rawValue
        let to = to.rawValue
        return try await read { db in
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM thing_states WHERE app_id = ? AND thing_id = ? AND recorded_at BETWEEN ? AND ?
                        AND (? IS NULL OR alias = ?)
                        ORDER BY recorded_at, sequence LIMIT ?
                        """),
                arguments: [appID.rawValue, thing.rawValue, from, to, alias, alias, limit + 1])
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

    public func aliasStates(
        appID: AppID, thing: ThingID, alias: String, from: UnixMillis, to: UnixMillis, after position: StatePosition?,
        limit: Int
    ) async throws -> [(position: StatePosition, record: ThingStateRecord)] {
        let after = position ?? StatePosition(recordedAt: UnixMillis(.min), sequence: .min)
        return try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT sequence, state, recorded_at, alias FROM thing_states INDEXED BY thing_states_alias
                        WHERE app_id = ? AND thing_id = ? AND alias = ? AND recorded_at BETWEEN ? AND ?
                            AND (recorded_at > ? OR (recorded_at = ? AND sequence > ?))
                        ORDER BY recorded_at, sequence LIMIT ?
                        """),
                arguments: [
                    appID.rawValue, thing.rawValue, alias, max(from, after.recordedAt).rawValue, to.rawValue,
                    after.recordedAt.rawValue, after.recordedAt.rawValue, after.sequence, limit,
                ]
            ).compactMap { row in
                Self.stateRecord(row).map {
                    (StatePosition(recordedAt: $0.recordedAt, sequence: row["sequence"]), $0)
                }
            }
        }
    }

    static func stateRecord(_ row: Row) -> ThingStateRecord? {
        guard let state = try? JSONReader.object(Array((row["state"] as String).utf8)) else { return nil }
        return ThingStateRecord(state: state, recordedAt: UnixMillis(row["recorded_at"] as Int64), alias: row["alias"])
    }
}
