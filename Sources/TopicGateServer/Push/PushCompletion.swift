import TopicGateCore

/// What the service that handed a push over does once the push is settled. A message names
/// its completion by the command it carries (`OutboxMessage.commandID`), stored with it, so
/// that whichever gateway settles it, after a restart too, completes it; the push pipeline
/// only reports, and writes nothing of the service's own.
///
/// Called before the message leaves the outbox: a crash in between delivers it again and
/// completes it again, so it must be idempotent.
///
/// That a broker took a command's push for at least one device (its `publishedAt`) is written
/// with the message's removal from the outbox, in one write (`OutboxStore.completeMessages`).
protocol PushCompletion: Sendable {
    /// These can never arrive: they had no device to go to, or they were given up on (moved to
    /// the dead letters).
    func failed(_ commands: [AppID: [CommandID]], at: UnixMillis) async throws
}
