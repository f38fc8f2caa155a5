public import TopicGateCore

/// Thing-IF commands. Deleting a thing deletes its commands.
public protocol CommandStore: Sendable {
    /// Stores a new command and, in the same transaction, the push that carries it (if any).
    func insertCommand(_ command: Command, queueing push: QueuedPush?) async throws
    func command(appID: AppID, id: CommandID) async throws -> Command?
    /// A command's thing and issuer (what its results' push needs), without reading its body.
    func commandIssuer(appID: AppID, id: CommandID) async throws -> (thing: ThingID, issuer: Owner)?
    /// A thing's commands, newest first, `limit` at a time after `paginationKey`; the key of
    /// the next page when there is one.
    func commands(appID: AppID, thing: ThingID, limit: Int, after paginationKey: String?) async throws
        -> (commands: [Command], next: String?)
    /// Stores the thing's results and the state they lead to and, in the same transaction, the
    /// push of the `commandID` to the issuer (if any).
    func recordResults(
        appID: AppID, id: CommandID, results: JSONValue, state: CommandState, at now: UnixMillis,
        queueing push: QueuedPush?
    ) async throws
    /// Moves these commands to `state` where they are in one of the states `from`; the others
    /// keep theirs.
    func markCommands(appID: AppID, ids: [CommandID], as state: CommandState, from: [CommandState], at now: UnixMillis)
        async throws
    /// How many commands are in each state, in every app (for metrics).
    func commandStateCounts() async throws -> [CommandState: Int]
}

extension CommandStore {
    /// `SENDING` → `SEND_FAILED` for these commands (their push was given up on); others keep
    /// their state.
    public func markSendFailed(appID: AppID, ids: [CommandID], at now: UnixMillis) async throws {
        try await markCommands(appID: appID, ids: ids, as: .sendFailed, from: [.sending], at: now)
    }

    public func insertCommand(_ command: Command) async throws { try await insertCommand(command, queueing: nil) }

    public func recordResults(appID: AppID, id: CommandID, results: JSONValue, state: CommandState, at now: UnixMillis)
        async throws
    {
        try await recordResults(appID: appID, id: id, results: results, state: state, at: now, queueing: nil)
    }
}
