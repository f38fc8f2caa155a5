internal import PostgresNIO
import TopicGateCore

/// Removes pushes from the outbox once delivered (or dead-lettered).
struct OutboxRemoval: NamedStatement {
    static let sql = "DELETE FROM outbox WHERE message_id = ANY($1)"

    let ids: [PushMessageID]

    func makeBindings() -> PostgresBindings { Self.bindings("\(ids)") }
}
