internal import PostgresNIO
public import TopicGateCore

extension PostgresStore: TriggerStore {
    public func insertTrigger(_ trigger: Trigger) async throws {
        try await write(
            """
            INSERT INTO triggers (app_id, trigger_id, thing_id, predicate, command, title, description, metadata,
                disabled, disabled_reason, last_matched, next_due_at, created_at, modified_at)
            VALUES (\(trigger.appID), \(trigger.id.rawValue), \(trigger.thing),
                \(JSONWriter.string(trigger.predicate.json)), \(JSONWriter.string(trigger.command.json)),
                \(trigger.title), \(trigger.description), \(trigger.metadata.map { JSONWriter.string(.object($0)) }),
                \(trigger.disabled), \(trigger.disabledReason), \(trigger.lastMatched), \(trigger.nextDueAt),
                \(trigger.createdAt), \(trigger.modifiedAt))
            """)
    }

    public func trigger(appID: AppID, id: TriggerID) async throws -> Trigger? {
        try await read { connection in
            try await connection.first(
                "SELECT * FROM triggers WHERE app_id = \(appID) AND trigger_id = \(id.rawValue)"
            ).flatMap(Self.trigger)
        }
    }

    public func triggers(appID: AppID, thing: ThingID, limit: Int, after: String?) async throws
        -> (triggers: [Trigger], next: String?)
    {
        let after = after ?? ""
        return try await read { connection in
            let read = try await connection.rows(
                """
                SELECT * FROM triggers WHERE app_id = \(appID) AND thing_id = \(thing) AND trigger_id > \(after)
                ORDER BY trigger_id LIMIT \(limit + 1)
                """
            ).compactMap(Self.trigger)
            let page = Array(read.prefix(limit))
            return (page, read.count > limit ? page.last?.id.rawValue : nil)
        }
    }

    public func triggerCount(appID: AppID, thing: ThingID) async throws -> Int {
        try await read { connection in
            Int(
                try await connection.first(
                    "SELECT COUNT(*) AS n FROM triggers WHERE app_id = \(appID) AND thing_id = \(thing)"
                )?("n", as: Int64.self) ?? 0)
        }
    }

    public func updateTrigger(_ trigger: Trigger, parts: TriggerParts) async throws -> Bool {
        try await changesRow(
            """
            UPDATE triggers SET \(trigger, parts)
            WHERE app_id = \(trigger.appID) AND trigger_id = \(trigger.id.rawValue)
            RETURNING 1
            """)
    }

    public func deleteTrigger(appID: AppID, id: TriggerID) async throws -> Bool {
        try await changesRow(
            "DELETE FROM triggers WHERE app_id = \(appID) AND trigger_id = \(id.rawValue) RETURNING 1")
    }

    public func stateTriggers(appID: AppID, thing: ThingID) async throws -> [Trigger] {
        try await read { connection in
            try await connection.rows(
                """
                SELECT * FROM triggers WHERE app_id = \(appID) AND thing_id = \(thing) AND NOT disabled
                    AND next_due_at IS NULL
                """
            ).compactMap(Self.trigger).filter { !$0.predicate.isTimed }
        }
    }

    public func dueTriggers(now: UnixMillis, limit: Int) async throws -> [Trigger] {
        try await read { connection in
            try await connection.rows(
                """
                SELECT * FROM triggers WHERE next_due_at IS NOT NULL AND NOT disabled AND next_due_at <= \(now)
                ORDER BY next_due_at LIMIT \(limit)
                """
            ).compactMap(Self.trigger)
        }
    }

    public func clearMatches(appID: AppID, ids: [TriggerID]) async throws {
        guard !ids.isEmpty else { return }
        try await write(
            """
            UPDATE triggers SET last_matched = false
            WHERE app_id = \(appID) AND trigger_id = ANY(\(ids.map(\.rawValue))) AND last_matched
            """)
    }

    public func fireTrigger(_ firing: TriggerFiring, command: Command, queueing push: QueuedPush?) async throws
        -> Bool
    {
        let (appID, id) = (firing.appID, firing.id.rawValue)
        let claim: PostgresQuery
        switch firing.condition {
        case .satisfied:
            claim = """
                UPDATE triggers SET last_matched = true
                WHERE app_id = \(appID) AND trigger_id = \(id) AND NOT disabled RETURNING 1
                """
        case .moved(let from, let to):
            claim = """
                UPDATE triggers SET last_matched = \(to)
                WHERE app_id = \(appID) AND trigger_id = \(id) AND NOT disabled
                    AND COALESCE(last_matched, false) = \(from)
                RETURNING 1
                """
        case .due(let at, let next):
            claim = """
                UPDATE triggers SET next_due_at = \(next)
                WHERE app_id = \(appID) AND trigger_id = \(id) AND NOT disabled AND next_due_at = \(at)
                RETURNING 1
                """
        }
        let insertion = Self.insertion(of: command, queueing: push)
        return try await write { connection in
            guard try await connection.count(claim) > 0 else { return false }
            try await connection.run(insertion)
            return true
        }
    }

    public func disableTrigger(appID: AppID, id: TriggerID, reason: String, at now: UnixMillis) async throws {
        try await write(
            """
            UPDATE triggers SET disabled = true, disabled_reason = \(reason), modified_at = \(now)
            WHERE app_id = \(appID) AND trigger_id = \(id.rawValue)
            """)
    }

    public func appParameter(appID: AppID, name: String) async throws -> String? {
        try await read { connection in
            try await connection.first(
                "SELECT value FROM app_parameters WHERE app_id = \(appID) AND name = \(name)"
            )?("value")
        }
    }

    public func setAppParameter(appID: AppID, name: String, value: String) async throws {
        try await write(
            """
            INSERT INTO app_parameters (app_id, name, value) VALUES (\(appID), \(name), \(value))
            ON CONFLICT (app_id, name) DO UPDATE SET value = excluded.value
            """)
    }

    static func trigger(_ row: PostgresColumns) throws -> Trigger? {
        StoredForm.trigger(
            id: try row("trigger_id"), appID: try row("app_id"), thing: try row("thing_id"),
            predicate: try row("predicate"), command: try row("command"), title: try row("title"),
            description: try row("description"), metadata: try row("metadata"), disabled: try row("disabled"),
            disabledReason: try row("disabled_reason"), lastMatched: try row("last_matched"),
            nextDueAt: try row("next_due_at"), createdAt: try row("created_at"), modifiedAt: try row("modified_at"))
    }
}
