internal import PostgresNIO
import TopicGateCore

/// Records when a broker first took commands for a device; their state does not change.
/// Without waiting for the log, as the settlement it belongs to (`CommandStore.recordPublished`).
struct CommandPublication: NamedStatement {
    static let sql = """
        \(withoutWaitingForTheLog)
        UPDATE commands SET published_at = $1
        WHERE app_id = $2 AND command_id = ANY($3) AND published_at IS NULL AND EXISTS (SELECT FROM unsynced)
        """

    let appID: AppID
    let ids: [CommandID]
    let at: UnixMillis

    func makeBindings() -> PostgresBindings { Self.bindings("\(at)\(appID)\(ids)") }
}
