import TopicGateCore

/// What the service that handed a push over does once the push is settled. A message names
/// its completion by the command it carries (`OutboxMessage.commandID`), stored with it, so
/// that whichever gateway settles it, after a restart too, completes it; the push pipeline
/// only reports, and writes nothing of the service's own.
///
/// Called before the message leaves the outbox: a crash in between delivers it again and
/// completes it again, so both must be idempotent.
protocol PushCompletion: Sendable {
    /// The broker acknowledged these (by app) for at least one device.
    func delivered(_ commands: [AppID: [CommandID]], at: UnixMillis) async throws
    /// These were given up on: they moved to the dead letters.
    func failed(_ commands: [AppID: [CommandID]], at: UnixMillis) async throws
}
