internal import PostgresNIO
import TopicGateCore

/// Moves commands to a state, each only from one of the states it may leave.
struct CommandStateChange: NamedStatement {
    static let sql = """
        UPDATE commands SET state = $1, modified_at = $2
        WHERE app_id = $3 AND command_id = ANY($4) AND state = ANY($5)
        """

    let appID: AppID
    let ids: [CommandID]
    let state: CommandState
    let from: [CommandState]
    let at: UnixMillis

    func makeBindings() -> PostgresBindings {
        Self.bindings("\(state.rawValue)\(at)\(appID)\(ids)\(from.map(\.rawValue))")
    }
}
