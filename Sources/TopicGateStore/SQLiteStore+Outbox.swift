import Foundation
import GRDB
public import TopicGateCore

extension SQLiteStore: OutboxStore {
    public func enqueue(_ messages: [OutboxMessage]) async throws {
        try await write { db in
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO outbox (message_id, app_id, payload, recipients, accepted_at, command_id) VALUES (?, ?, ?, ?, ?, ?)
                    """)
            for message in messages {
                try statement.execute(arguments: [
                    message.id, message.appID.rawValue, Data(message.payload),
                    message.recipients.map(\.description).joined(separator: "\n"), message.acceptedAt,
                    message.commandID,
                ])
            }
        }
    }

    public func pendingMessages(limit: Int) async throws -> [OutboxMessage] {
        try await read { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM outbox ORDER BY sequence LIMIT ?"), arguments: [limit]).map { row in
                let recipients = (row["recipients"] as String).split(separator: "\n").compactMap(Self.subscriber)
                return OutboxMessage(
                    id: row["message_id"], appID: AppID(row["app_id"] as String), payload: Array(row["payload"] as Data),
                    recipients: recipients, acceptedAt: row["accepted_at"], commandID: row["command_id"])
            }
        }
    }

    public func completeMessages(ids: [String]) async throws {
        guard !ids.isEmpty else { return }
        try await write { db in
            for id in ids {
                try db.cachedStatement(sql: "DELETE FROM outbox WHERE message_id = ?").execute(arguments: [id])
            }
        }
    }

    /// `user:ID` or `thing:ID`, as `Subscriber.description` writes it.
    static func subscriber(_ text: Substring) -> Subscriber? {
        switch TypedID(parsing: text) {
        case .user(let id): .user(id)
        case .thing(let id): .thing(id)
        case .group, nil: nil
        }
    }

    public func pendingMessageCount() async throws -> Int {
        try await read { db in try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM outbox")) ?? 0 }
    }
}
