internal import PostgresNIO
import TopicGateCore

/// The settlement of delivered pushes in one statement, without waiting for the log
/// (`OutboxStore.completeMessages`): the messages leave the outbox, and the commands a broker
/// took for a device first get their `published_at` (their state does not change).
struct OutboxSettlement: NamedStatement {
    static let sql = """
        \(withoutWaitingForTheLog),
        published AS (
            UPDATE commands SET published_at = $2
            WHERE (app_id, command_id) IN (SELECT * FROM unnest($3::text[], $4::text[]))
                AND published_at IS NULL AND EXISTS (SELECT FROM unsynced))
        DELETE FROM outbox WHERE message_id = ANY($1) AND EXISTS (SELECT FROM unsynced)
        """

    let ids: [PushMessageID]
    /// The commands' apps and IDs, pair by pair.
    let commandApps: [String]
    let commandIDs: [String]
    let at: UnixMillis

    init(ids: [PushMessageID], publishedCommands: [AppID: [CommandID]], at: UnixMillis) {
        self.ids = ids
        let pairs = publishedCommands.flatMap { appID, commands in commands.map { (appID.rawValue, $0.rawValue) } }
        commandApps = pairs.map(\.0)
        commandIDs = pairs.map(\.1)
        self.at = at
    }

    func makeBindings() -> PostgresBindings { Self.bindings("\(ids)\(at)\(commandApps)\(commandIDs)") }
}
