public import TopicGateCore

/// Thing-IF commands. Deleting a thing deletes its commands.
public protocol CommandStore: Sendable {
    func insertCommand(_ command: Command) async throws
    func command(appID: AppID, id: String) async throws -> Command?
    /// A thing's commands, newest first, `limit` at a time after `paginationKey`; the key of
    /// the next page when there is one.
    func commands(appID: AppID, thing: ThingID, limit: Int, after paginationKey: String?) async throws
        -> (commands: [Command], next: String?)
    /// Stores the thing's results and the state they lead to.
    func recordResults(appID: AppID, id: String, results: JSONValue, state: CommandState, at now: Int64) async throws
    /// `SENDING` → `DELIVERED` for these commands (others keep their state).
    func markDelivered(appID: AppID, ids: [String], at now: Int64) async throws
    /// How many commands are in each state, in every app (for metrics).
    func commandStateCounts() async throws -> [CommandState: Int]
}
