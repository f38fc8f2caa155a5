import Foundation
import GRDB
public import TopicGateCore

extension SQLiteStore: CommandStore {
    public func insertCommand(_ command: Command, queueing push: QueuedPush?) async throws {
        try await write { db in
            try Self.queue(push, in: db)
            try Self.insertCommandRow(db, command)
        }
    }

    static func insertCommandRow(_ db: Database, _ command: Command) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO commands (app_id, command_id, thing_id, issuer, request, action_results, state,
                    created_at, modified_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            command.appID.rawValue, command.id.rawValue, command.thing.rawValue, command.issuer.description,
            JSONWriter.string(.object(command.request.members)), command.actionResults.map(JSONWriter.string),
            command.state.rawValue, command.createdAt, command.modifiedAt,
        ])
    }

    public func command(appID: AppID, id: CommandID) async throws -> Command? {
        try await readOneStatement { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM commands WHERE app_id = ? AND command_id = ?"),
                arguments: [appID.rawValue, id.rawValue]
            ).flatMap(Self.command)
        }
    }

    public func commandIssuer(appID: AppID, id: CommandID) async throws -> (thing: ThingID, issuer: Owner)? {
        try await readOneStatement { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT thing_id, issuer FROM commands WHERE app_id = ? AND command_id = ?"),
                arguments: [appID.rawValue, id.rawValue]
            ).flatMap { row in Owner(parsing: row[1] as String).map { (ThingID(row[0] as String), $0) } }
        }
    }

    public func commands(appID: AppID, thing: ThingID, limit: Int, after paginationKey: String?) async throws
        -> (commands: [Command], next: String?)
    {
        let cursor = StoredForm.commandCursor(paginationKey)
        return try await read { db in
            var sql = "SELECT * FROM commands WHERE app_id = ? AND thing_id = ?"
            var arguments: StatementArguments = [appID.rawValue, thing.rawValue]
            if let (at, id) = cursor {
                sql += " AND (created_at < ? OR (created_at = ? AND command_id < ?))"
                arguments += [at, at, id]
            }
            sql += " ORDER BY created_at DESC, command_id DESC LIMIT ?"
            arguments += [limit + 1]
            return StoredForm.commandPage(
                try Row.fetchAll(db, sql: sql, arguments: arguments).compactMap(Self.command), limit: limit)
        }
    }

    public func recordResults(
        appID: AppID, id: CommandID, results: JSONValue, state: CommandState, at now: UnixMillis,
        queueing push: QueuedPush?
    ) async throws {
        let now = now.rawValue
        try await write { db in
            try Self.queue(push, in: db)
            try db.cachedStatement(
                sql:
                    "UPDATE commands SET action_results = ?, state = ?, modified_at = ? WHERE app_id = ? AND "
                    + "command_id = ?"
            ).execute(arguments: [JSONWriter.string(results), state.rawValue, now, appID.rawValue, id.rawValue])
        }
    }

    public func commandStateCounts() async throws -> [CommandState: Int] {
        try await read { db in
            var counts: [CommandState: Int] = [:]
            for row in try Row.fetchAll(
                db.cachedStatement(sql: "SELECT state, COUNT(*) AS n FROM commands GROUP BY state"))
            {
                if let state = CommandState(rawValue: row["state"]) { counts[state] = row["n"] }
            }
            return counts
        }
    }

    public func markCommands(
        appID: AppID, ids: [CommandID], as state: CommandState, from: [CommandState], at now: UnixMillis
    ) async throws {
        guard !ids.isEmpty else { return }
        let from = from.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        try await write { db in
            let statement = try db.cachedStatement(
                sql: """
                    UPDATE commands SET state = ?, modified_at = ?
                    WHERE app_id = ? AND command_id = ? AND state IN (\(from))
                    """)
            for id in ids {
                try statement.execute(arguments: [state.rawValue, now.rawValue, appID.rawValue, id.rawValue])
            }
        }
    }

    static func command(_ row: Row) -> Command? {
        StoredForm.command(
            id: row["command_id"], appID: AppID(row["app_id"] as String), thing: ThingID(row["thing_id"] as String),
            issuer: row["issuer"], request: row["request"], actionResults: row["action_results"], state: row["state"],
            createdAt: row["created_at"], modifiedAt: row["modified_at"], publishedAt: row["published_at"])
    }
}
