internal import PostgresNIO
import TopicGateCore

/// Removes pushes from the outbox once delivered, without waiting for the log
/// (`OutboxStore.completeMessages`).
struct OutboxRemoval: NamedStatement {
    static let sql = """
        \(withoutWaitingForTheLog)
        DELETE FROM outbox WHERE message_id = ANY($1) AND EXISTS (SELECT FROM unsynced)
        """

    let ids: [PushMessageID]

    func makeBindings() -> PostgresBindings { Self.bindings("\(ids)") }
}
