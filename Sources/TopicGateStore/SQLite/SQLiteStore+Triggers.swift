import GRDB
public import TopicGateCore

extension SQLiteStore: TriggerStore {
    public func insertTrigger(_ trigger: Trigger) async throws {
        try await write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO triggers (app_id, trigger_id, thing_id, predicate, command, title, description,
                        metadata, disabled, disabled_reason, last_matched, next_due_at, created_at, modified_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: StatementArguments(Self.triggerColumns(trigger)))
        }
    }

    public func trigger(appID: AppID, id: TriggerID) async throws -> Trigger? {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM triggers WHERE app_id = ? AND trigger_id = ?"),
                arguments: [appID.rawValue, id.rawValue]
            ).flatMap(Self.trigger)
        }
    }

    public func triggers(appID: AppID, thing: ThingID, limit: Int, after: String?) async throws
        -> (triggers: [Trigger], next: String?)
    {
        try await read { db in
            let read = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM triggers WHERE app_id = ? AND thing_id = ? AND trigger_id > ?
                        ORDER BY trigger_id LIMIT ?
                        """),
                arguments: [appID.rawValue, thing.rawValue, after ?? "", limit + 1]
            ).compactMap(Self.trigger)
            let page = Array(read.prefix(limit))
            return (page, read.count > limit ? page.last?.id.rawValue : nil)
        }
    }

    public func triggerCount(appID: AppID, thing: ThingID) async throws -> Int {
        try await read { db in
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT COUNT(*) FROM triggers WHERE app_id = ? AND thing_id = ?"),
                arguments: [appID.rawValue, thing.rawValue]) ?? 0
        }
    }

    public func updateTrigger(_ trigger: Trigger, parts: TriggerParts) async throws -> Bool {
        var columns: [(String, (any DatabaseValueConvertible)?)] = []
        if parts.contains(.definition) {
            columns += [
                ("predicate", JSONWriter.string(trigger.predicate.json)),
                ("command", JSONWriter.string(trigger.command.json)),
                ("title", trigger.title), ("description", trigger.description),
                ("metadata", trigger.metadata.map { JSONWriter.string(.object($0)) }),
            ]
        }
        if parts.contains(.schedule) {
            columns += [("last_matched", trigger.lastMatched), ("next_due_at", trigger.nextDueAt?.rawValue)]
        }
        if parts.contains(.status) {
            columns += [("disabled", trigger.disabled), ("disabled_reason", trigger.disabledReason)]
        }
        columns.append(("modified_at", trigger.modifiedAt.rawValue))
        let sql =
            "UPDATE triggers SET " + columns.map { "\($0.0) = ?" }.joined(separator: ", ")
            + " WHERE app_id = ? AND trigger_id = ?"
        let arguments = StatementArguments(columns.map(\.1) + [trigger.appID.rawValue, trigger.id.rawValue])
        return try await write { db in
            try db.cachedStatement(sql: sql).execute(arguments: arguments)
            return db.changesCount > 0
        }
    }

    public func deleteTrigger(appID: AppID, id: TriggerID) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM triggers WHERE app_id = ? AND trigger_id = ?").execute(
                arguments: [appID.rawValue, id.rawValue])
            return db.changesCount > 0
        }
    }

    public func stateTriggers(appID: AppID, thing: ThingID) async throws -> [Trigger] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM triggers WHERE app_id = ? AND thing_id = ? AND disabled = 0
                            AND next_due_at IS NULL
                        """),
                arguments: [appID.rawValue, thing.rawValue]
            ).compactMap(Self.trigger).filter { !$0.predicate.isTimed }
        }
    }

    public func dueTriggers(now: UnixMillis, limit: Int) async throws -> [Trigger] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM triggers WHERE next_due_at IS NOT NULL AND disabled = 0 AND next_due_at <= ?
                        ORDER BY next_due_at LIMIT ?
                        """),
                arguments: [now.rawValue, limit]
            ).compactMap(Self.trigger)
        }
    }

    public func clearMatches(appID: AppID, ids: [TriggerID]) async throws {
        guard !ids.isEmpty else { return }
        try await write { db in
            let statement = try db.cachedStatement(
                sql: "UPDATE triggers SET last_matched = 0 WHERE app_id = ? AND trigger_id = ? AND last_matched = 1")
            for id in ids { try statement.execute(arguments: [appID.rawValue, id.rawValue]) }
        }
    }

    public func fireTrigger(_ firing: TriggerFiring, command: Command, queueing push: QueuedPush?) async throws
        -> Bool
    {
        try await write { db in
            let key: [(any DatabaseValueConvertible)?] = [firing.appID.rawValue, firing.id.rawValue]
            switch firing.condition {
            case .satisfied:
                try db.cachedStatement(
                    sql: """
                        UPDATE triggers SET last_matched = 1 WHERE app_id = ? AND trigger_id = ? AND disabled = 0
                        """
                ).execute(arguments: StatementArguments(key))
            case .moved(let from, let to):
                try db.cachedStatement(
                    sql: """
                        UPDATE triggers SET last_matched = ? WHERE app_id = ? AND trigger_id = ? AND disabled = 0
                            AND COALESCE(last_matched, 0) = ?
                        """
                ).execute(arguments: StatementArguments([to] + key + [from]))
            case .due(let at, let next):
                try db.cachedStatement(
                    sql: """
                        UPDATE triggers SET next_due_at = ? WHERE app_id = ? AND trigger_id = ? AND disabled = 0
                            AND next_due_at = ?
                        """
                ).execute(arguments: StatementArguments([next?.rawValue] + key + [at.rawValue]))
            }
            guard db.changesCount > 0 else { return false }
            try Self.queue(push, in: db)
            try Self.insertCommandRow(db, command)
            return true
        }
    }

    public func disableTrigger(appID: AppID, id: TriggerID, reason: String, at now: UnixMillis) async throws {
        try await write { db in
            try db.cachedStatement(
                sql: """
                    UPDATE triggers SET disabled = 1, disabled_reason = ?, modified_at = ?
                    WHERE app_id = ? AND trigger_id = ?
                    """
            ).execute(arguments: [reason, now.rawValue, appID.rawValue, id.rawValue])
        }
    }

    public func appParameter(appID: AppID, name: String) async throws -> String? {
        try await read { db in
            try String.fetchOne(
                db.cachedStatement(sql: "SELECT value FROM app_parameters WHERE app_id = ? AND name = ?"),
                arguments: [appID.rawValue, name])
        }
    }

    public func setAppParameter(appID: AppID, name: String, value: String) async throws {
        try await write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO app_parameters (app_id, name, value) VALUES (?, ?, ?)
                    ON CONFLICT (app_id, name) DO UPDATE SET value = excluded.value
                    """
            ).execute(arguments: [appID.rawValue, name, value])
        }
    }

    /// The columns of `trigger`, in the order of the table (app and ID first).
    static func triggerColumns(_ trigger: Trigger) -> [(any DatabaseValueConvertible)?] {
        [
            trigger.appID.rawValue, trigger.id.rawValue, trigger.thing.rawValue,
            JSONWriter.string(trigger.predicate.json),
            JSONWriter.string(trigger.command.json), trigger.title, trigger.description,
            trigger.metadata.map { JSONWriter.string(.object($0)) }, trigger.disabled, trigger.disabledReason,
            trigger.lastMatched, trigger.nextDueAt?.rawValue, trigger.createdAt.rawValue, trigger.modifiedAt.rawValue,
        ]
    }

    static func trigger(_ row: Row) -> Trigger? {
        StoredForm.trigger(
            id: row["trigger_id"], appID: AppID(row["app_id"] as String), thing: ThingID(row["thing_id"] as String),
            predicate: row["predicate"], command: row["command"], title: row["title"], description: row["description"],
            metadata: row["metadata"], disabled: row["disabled"], disabledReason: row["disabled_reason"],
            lastMatched: row["last_matched"], nextDueAt: (row["next_due_at"] as Int64?).map { UnixMillis($0) },
            createdAt: UnixMillis(row["created_at"] as Int64), modifiedAt: UnixMillis(row["modified_at"] as Int64))
    }
}
