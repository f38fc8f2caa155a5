import Foundation
import GRDB
public import TopicGateCore

extension SQLiteStore: OutboxStore {
    public func enqueue(_ messages: [OutboxMessage], claim: OutboxClaim?) async throws {
        try await write { db in
            try Self.insertOutboxRows(db, messages, claim: claim)
        }
    }

    /// Writes `push` (if any) into the outbox within the caller's transaction.
    static func queue(_ push: QueuedPush?, in db: Database) throws {
        guard let push else { return }
        try insertOutboxRows(db, [push.message], claim: push.claim)
    }

    static func insertOutboxRows(
        _ db: Database, _ messages: [OutboxMessage], claim: OutboxClaim?
    ) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO outbox (message_id, app_id, payload, recipients, accepted_at, command_id, claimed_by,
                    lease_until, traced) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for message in messages {
            try statement.execute(arguments: [
                message.id.rawValue, message.appID.rawValue, Data(message.payload),
                StoredForm.recipients(message.recipients), message.acceptedAt,
                message.commandID?.rawValue, claim?.gateway, (claim?.leaseUntil ?? 0).rawValue, message.traced,
            ])
        }
    }

    public func pendingMessages(limit: Int) async throws -> [OutboxMessage] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM outbox ORDER BY sequence LIMIT ?"), arguments: [limit]
            )
            .map(Self.outboxMessage)
        }
    }

    public func claimMessages(gateway: String, limit: Int, now: UnixMillis, leaseUntil: UnixMillis) async throws
        -> [OutboxMessage]
    {
        let now = now.rawValue
        let leaseUntil = leaseUntil.rawValue
        return try await write { db in
            let claimable = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM outbox WHERE claimed_by IS NULL OR claimed_by = ? OR lease_until < ?
                        ORDER BY sequence LIMIT ?
                        """), arguments: [gateway, now, limit])
            let claim = try db.cachedStatement(
                sql: "UPDATE outbox SET claimed_by = ?, lease_until = ? WHERE sequence = ?")
            for row in claimable {
                try claim.execute(arguments: [gateway, leaseUntil, row["sequence"] as Int64])
            }
            return claimable.map(Self.outboxMessage)
        }
    }

    public func completeMessages(ids: [PushMessageID], publishedCommands: [AppID: [CommandID]], at now: UnixMillis)
        async throws
    {
        guard !ids.isEmpty || !publishedCommands.isEmpty else { return }
        try await write(synced: false) { db in
            if !publishedCommands.isEmpty {
                let published = try db.cachedStatement(
                    sql:
                        "UPDATE commands SET published_at = ? WHERE app_id = ? AND command_id = ? AND published_at IS NULL"
                )
                for (appID, commands) in publishedCommands {
                    for id in commands {
                        try published.execute(arguments: [now.rawValue, appID.rawValue, id.rawValue])
                    }
                }
            }
            let removal = try db.cachedStatement(sql: "DELETE FROM outbox WHERE message_id = ?")
            for id in ids { try removal.execute(arguments: [id.rawValue]) }
        }
    }

    static func outboxMessage(_ row: Row) -> OutboxMessage {
        let recipients = StoredForm.recipients(row["recipients"] as String)
        return OutboxMessage(
            id: PushMessageID(row["message_id"] as String), appID: AppID(row["app_id"] as String),
            payload: Array(row["payload"] as Data),
            recipients: recipients, acceptedAt: row["accepted_at"],
            commandID: (row["command_id"] as String?).map { CommandID($0) },
            attempts: row["attempts"], deliveredBrokers: StoredForm.brokers(row["delivered_brokers"] as String?),
            traced: row["traced"])
    }

    public func recordProgress(id: PushMessageID, deliveredBrokers: Set<String>) async throws {
        try await write { db in
            try db.cachedStatement(sql: "UPDATE outbox SET delivered_brokers = ? WHERE message_id = ?")
                .execute(arguments: [StoredForm.brokers(deliveredBrokers), id.rawValue])
        }
    }

    public func postponeMessages(ids: [PushMessageID], until: UnixMillis) async throws {
        let until = until.rawValue
        guard !ids.isEmpty else { return }
        try await write { db in
            // Held by no gateway ('' names none) until `until`: claimable again only then.
            let statement = try db.cachedStatement(
                sql: "UPDATE outbox SET claimed_by = '', lease_until = ? WHERE message_id = ?")
            for id in ids { try statement.execute(arguments: [until, id.rawValue]) }
        }
    }

    public func recordFailedAttempt(ids: [PushMessageID]) async throws {
        guard !ids.isEmpty else { return }
        try await write { db in
            let statement = try db.cachedStatement(
                sql: "UPDATE outbox SET attempts = attempts + 1 WHERE message_id = ?")
            for id in ids { try statement.execute(arguments: [id.rawValue]) }
        }
    }

    public func deadLetter(ids: [PushMessageID], reason: String, at: UnixMillis) async throws {
        let at = at.rawValue
        guard !ids.isEmpty else { return }
        try await write { db in
            for id in ids {
                try db.execute(
                    sql: """
                        INSERT INTO dead_letters
                            (message_id, app_id, payload, recipients, accepted_at, command_id, attempts, failed_at,
                                reason, delivered_brokers, traced)
                        SELECT message_id, app_id, payload, recipients, accepted_at, command_id, attempts + 1, ?, ?,
                            delivered_brokers, traced
                        FROM outbox WHERE message_id = ?
                        """, arguments: [at, reason, id.rawValue])
                try db.execute(sql: "DELETE FROM outbox WHERE message_id = ?", arguments: [id.rawValue])
            }
        }
    }

    public func deadLetters(appID: AppID, limit: Int, before: Int64?) async throws -> [(
        sequence: Int64, letter: DeadLetter
    )] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM dead_letters WHERE app_id = ? AND sequence < ? ORDER BY sequence DESC LIMIT ?
                    """, arguments: [appID.rawValue, before ?? Int64.max, limit]
            ).map { row in
                (
                    row["sequence"],
                    DeadLetter(message: Self.outboxMessage(row), failedAt: row["failed_at"], reason: row["reason"])
                )
            }
        }
    }

    public func deadLetterCount() async throws -> Int {
        try await read { db in try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM dead_letters")) ?? 0 }
    }

    public func pendingMessageCount() async throws -> Int {
        try await read { db in try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM outbox")) ?? 0 }
    }

    public func pendingMessageCount(appID: AppID) async throws -> Int {
        try await read { db in
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT COUNT(*) FROM outbox WHERE app_id = ?"), arguments: [appID.rawValue])
                ?? 0
        }
    }

    public func deadLetterCount(appID: AppID) async throws -> Int {
        try await read { db in
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT COUNT(*) FROM dead_letters WHERE app_id = ?"),
                arguments: [appID.rawValue]) ?? 0
        }
    }
}
