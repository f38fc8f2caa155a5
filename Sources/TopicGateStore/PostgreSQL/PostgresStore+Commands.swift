internal import PostgresNIO
public import TopicGateCore

extension PostgresStore: CommandStore {
    public func insertCommand(_ command: Command, queueing push: QueuedPush?) async throws {
        try await write(Self.insertion(of: command, queueing: push))
    }

    /// The statement that stores `command` and, with it, its push.
    static func insertion(of command: Command, queueing push: QueuedPush?) -> PostgresQuery {
        """
        \(queueing: push)INSERT INTO commands (app_id, command_id, thing_id, issuer, request, action_results, state,
            created_at, modified_at)
        VALUES (\(command.appID), \(command.id), \(command.thing), \(command.issuer.description),
            \(JSONWriter.string(.object(command.request.members))),
            \(command.actionResults.map(JSONWriter.string)), \(command.state.rawValue), \(command.createdAt),
            \(command.modifiedAt))
        """
    }

    public func command(appID: AppID, id: CommandID) async throws -> Command? {
        try await read { connection in
            try await connection.first("SELECT * FROM commands WHERE app_id = \(appID) AND command_id = \(id)")
                .flatMap(Self.command)
        }
    }

    public func commandIssuer(appID: AppID, id: CommandID) async throws -> (thing: ThingID, issuer: Owner)? {
        try await read { connection in
            guard
                let row = try await connection.first(
                    "SELECT thing_id, issuer FROM commands WHERE app_id = \(appID) AND command_id = \(id)"),
                let issuer = Owner(parsing: try row("issuer") as String)
            else { return nil }
            return (try row("thing_id"), issuer)
        }
    }

    public func commands(appID: AppID, thing: ThingID, limit: Int, after paginationKey: String?) async throws
        -> (commands: [Command], next: String?)
    {
        let cursor = StoredForm.commandCursor(paginationKey)
        let query: PostgresQuery
        if let (at, id) = cursor {
            query = """
                SELECT * FROM commands WHERE app_id = \(appID) AND thing_id = \(thing)
                    AND (created_at < \(at) OR (created_at = \(at) AND command_id < \(id)))
                ORDER BY created_at DESC, command_id DESC LIMIT \(limit + 1)
                """
        } else {
            query = """
                SELECT * FROM commands WHERE app_id = \(appID) AND thing_id = \(thing)
                ORDER BY created_at DESC, command_id DESC LIMIT \(limit + 1)
                """
        }
        return try await read { connection in
            return StoredForm.commandPage(try await connection.rows(query).compactMap(Self.command), limit: limit)
        }
    }

    public func recordResults(
        appID: AppID, id: CommandID, results: JSONValue, state: CommandState, at now: UnixMillis,
        queueing push: QueuedPush?
    ) async throws {
        try await write(
            """
            \(queueing: push)UPDATE commands SET action_results = \(JSONWriter.string(results)),
                state = \(state.rawValue), modified_at = \(now)
            WHERE app_id = \(appID) AND command_id = \(id)
            """)
    }

    public func commandStateCounts() async throws -> [CommandState: Int] {
        try await read { connection in
            var counts: [CommandState: Int] = [:]
            for row in try await connection.rows("SELECT state, COUNT(*) AS n FROM commands GROUP BY state") {
                if let state = CommandState(rawValue: try row("state")) {
                    counts[state] = Int(try row("n", as: Int64.self))
                }
            }
            return counts
        }
    }

    public func markCommands(
        appID: AppID, ids: [CommandID], as state: CommandState, from: [CommandState], at now: UnixMillis
    ) async throws {
        guard !ids.isEmpty else { return }
        try await write(CommandStateChange(appID: appID, ids: ids, state: state, from: from, at: now))
    }

    static func command(_ row: PostgresColumns) throws -> Command? {
        StoredForm.command(
            id: try row("command_id"), appID: try row("app_id"), thing: try row("thing_id"), issuer: try row("issuer"),
            request: try row("request"), actionResults: try row("action_results"), state: try row("state"),
            createdAt: try row("created_at"), modifiedAt: try row("modified_at"), publishedAt: try row("published_at"))
    }
}
