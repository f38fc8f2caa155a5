import NIOCore
internal import PostgresNIO
public import TopicGateCore

extension PostgresStore: OutboxStore {
    public func enqueue(_ messages: [OutboxMessage], claim: OutboxClaim?) async throws {
        guard messages.count > Self.outboxRowsPerStatement else {
            guard !messages.isEmpty else { return }
            // One statement for all of them: one round trip.
            try await write("INSERT INTO outbox \(outboxRows: messages, claim: claim)")
            return
        }
        // A statement binds at most 65 535 values (nine a row): more rows, more statements, in
        // one transaction.
        try await write { connection in
            for start in stride(from: 0, to: messages.count, by: Self.outboxRowsPerStatement) {
                let slice = Array(messages[start..<min(start + Self.outboxRowsPerStatement, messages.count)])
                try await connection.run("INSERT INTO outbox \(outboxRows: slice, claim: claim)")
            }
        }
    }

    static let outboxRowsPerStatement = 1_000

    public func pendingMessages(limit: Int) async throws -> [OutboxMessage] {
        try await read { connection in
            try await connection.rows("SELECT * FROM outbox ORDER BY sequence LIMIT \(limit)").map(Self.outboxMessage)
        }
    }

    public func claimMessages(gateway: String, limit: Int, now: UnixMillis, leaseUntil: UnixMillis) async throws
        -> [OutboxMessage]
    {
        try await write { connection in
            // SKIP LOCKED: gateways claiming at the same moment take different messages.
            try await connection.rows(
                """
                UPDATE outbox SET claimed_by = \(gateway), lease_until = \(leaseUntil)
                WHERE sequence IN (
                    SELECT sequence FROM outbox
                    WHERE claimed_by IS NULL OR claimed_by = \(gateway) OR lease_until < \(now)
                    ORDER BY sequence LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                RETURNING *
                """
            ).map { (try $0("sequence", as: Int64.self), try Self.outboxMessage($0)) }.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    public func completeMessages(ids: [PushMessageID], publishedCommands: [AppID: [CommandID]], at now: UnixMillis)
        async throws
    {
        guard !ids.isEmpty || !publishedCommands.isEmpty else { return }
        try await write(OutboxSettlement(ids: ids, publishedCommands: publishedCommands, at: now))
    }

    public func recordProgress(id: PushMessageID, deliveredBrokers: Set<String>) async throws {
        try await write { connection in
            try await connection.run(
                """
                UPDATE outbox SET delivered_brokers = \(StoredForm.brokers(deliveredBrokers)) WHERE message_id = \(id)
                """)
        }
    }

    public func postponeMessages(ids: [PushMessageID], until: UnixMillis) async throws {
        guard !ids.isEmpty else { return }
        try await write { connection in
            // Held by no gateway ('' names none) until `until`: claimable again only then.
            try await connection.run(
                "UPDATE outbox SET claimed_by = '', lease_until = \(until) WHERE message_id = ANY(\(ids))")
        }
    }

    public func recordFailedAttempt(ids: [PushMessageID]) async throws {
        guard !ids.isEmpty else { return }
        try await write { connection in
            try await connection.run("UPDATE outbox SET attempts = attempts + 1 WHERE message_id = ANY(\(ids))")
        }
    }

    public func deadLetter(ids: [PushMessageID], reason: String, at: UnixMillis) async throws {
        guard !ids.isEmpty else { return }
        try await write { connection in
            try await connection.run(
                """
                INSERT INTO dead_letters
                    (message_id, app_id, payload, recipients, accepted_at, command_id, attempts, failed_at, reason,
                        delivered_brokers, traced)
                SELECT message_id, app_id, payload, recipients, accepted_at, command_id, attempts + 1, \(at), \(reason),
                    delivered_brokers, traced
                FROM outbox WHERE message_id = ANY(\(ids)) ORDER BY sequence
                """)
            try await connection.run("DELETE FROM outbox WHERE message_id = ANY(\(ids))")
        }
    }

    public func deadLetters(appID: AppID, limit: Int, before: Int64?) async throws -> [(
        sequence: Int64, letter: DeadLetter
    )] {
        try await read { connection in
            try await connection.rows(
                """
                SELECT * FROM dead_letters WHERE app_id = \(appID) AND sequence < \(before ?? Int64.max)
                ORDER BY sequence DESC LIMIT \(limit)
                """
            ).map { row in
                (
                    try row("sequence"),
                    DeadLetter(
                        message: try Self.outboxMessage(row), failedAt: try row("failed_at"), reason: try row("reason"))
                )
            }
        }
    }

    public func deadLetterCount() async throws -> Int {
        try await read { connection in
            try await connection.first("SELECT COUNT(*) AS n FROM dead_letters").map {
                Int(try $0("n", as: Int64.self))
            }
                ?? 0
        }
    }

    public func pendingMessageCount() async throws -> Int {
        try await read { connection in
            try await connection.first("SELECT COUNT(*) AS n FROM outbox").map { Int(try $0("n", as: Int64.self)) } ?? 0
        }
    }

    public func pendingMessageCount(appID: AppID) async throws -> Int {
        try await read { connection in
            try await connection.first("SELECT COUNT(*) AS n FROM outbox WHERE app_id = \(appID.rawValue)").map {
                Int(try $0("n", as: Int64.self))
            } ?? 0
        }
    }

    public func deadLetterCount(appID: AppID) async throws -> Int {
        try await read { connection in
            try await connection.first("SELECT COUNT(*) AS n FROM dead_letters WHERE app_id = \(appID.rawValue)").map {
                Int(try $0("n", as: Int64.self))
            } ?? 0
        }
    }

    static func outboxMessage(_ row: PostgresColumns) throws -> OutboxMessage {
        OutboxMessage(
            id: try row("message_id"), appID: try row("app_id"),
            payload: Array(try row("payload", as: ByteBuffer.self).readableBytesView),
            recipients: StoredForm.recipients(try row("recipients", as: String.self)),
            acceptedAt: try row("accepted_at"), commandID: try row("command_id"),
            attempts: Int(try row("attempts", as: Int32.self)),
            deliveredBrokers: StoredForm.brokers(try row("delivered_brokers", as: String?.self)),
            traced: try row("traced"))
    }
}
