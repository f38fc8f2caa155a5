public import TopicGateCore

/// Accepted pushes not yet acknowledged by the broker for every recipient device.
public protocol OutboxStore: Sendable {
    /// Durably records `messages` in one transaction (one disk sync); when this returns they
    /// survive a crash. All or none. With a `claim`, the messages are held by its gateway until
    /// its lease ends from the start: the gateway that accepted them delivers them from memory,
    /// and no other takes them while it may.
    func enqueue(_ messages: [OutboxMessage], claim: OutboxClaim?) async throws
    /// The oldest `limit` waiting messages, oldest first (whoever holds them).
    func pendingMessages(limit: Int) async throws -> [OutboxMessage]
    /// Takes up to `limit` waiting messages for `gateway` to deliver, oldest first: those no
    /// gateway holds, those it holds already, and those whose holder's lease ran out before
    /// `now` (a gateway that died). It holds them until `leaseUntil`; while a lease runs no
    /// other gateway takes the message.
    func claimMessages(gateway: String, limit: Int, now: UnixMillis, leaseUntil: UnixMillis) async throws
        -> [OutboxMessage]
    /// Records the brokers that acknowledged a message for all their devices (the others are
    /// still to be delivered).
    func recordProgress(id: PushMessageID, deliveredBrokers: Set<String>) async throws
    /// Lets go of messages that wait for a broker that is down: no gateway takes them again
    /// before `until`, and waiting costs no attempt.
    func postponeMessages(ids: [PushMessageID], until: UnixMillis) async throws
    /// Removes delivered messages and, in the same write, records that a broker took
    /// `publishedCommands` (by app) for a device at `now`, where none did before (their
    /// `publishedAt`; their state does not change). It may return before the write is on disk
    /// (SQLite commits it without a sync of its own, PostgreSQL without waiting for its log): a
    /// crash of the host may undo it, and the messages are then delivered and settled again, as
    /// after a crash just before the call. An earlier settlement is never undone while a later
    /// one stays.
    func completeMessages(ids: [PushMessageID], publishedCommands: [AppID: [CommandID]], at now: UnixMillis)
        async throws
    /// Messages in the outbox: every app's, or one app's.
    func pendingMessageCount() async throws -> Int
    func pendingMessageCount(appID: AppID) async throws -> Int
    /// Counts one more failed delivery of each message.
    func recordFailedAttempt(ids: [PushMessageID]) async throws
    /// Moves messages out of the outbox into the dead letters after one more failed attempt,
    /// in one transaction. (The command a message carried is the command service's to fail.)
    func deadLetter(ids: [PushMessageID], reason: String, at: UnixMillis) async throws
    /// One page of an app's dead letters, newest first, each with its key for paging.
    func deadLetters(appID: AppID, limit: Int, before: Int64?) async throws -> [(sequence: Int64, letter: DeadLetter)]
    /// Dead letters: every app's, or one app's.
    func deadLetterCount() async throws -> Int
    func deadLetterCount(appID: AppID) async throws -> Int
}

extension OutboxStore {
    /// Removes delivered messages that carry no command's first publication.
    public func completeMessages(ids: [PushMessageID]) async throws {
        try await completeMessages(ids: ids, publishedCommands: [:], at: 0)
    }

    /// `enqueue`, held by no gateway.
    public func enqueue(_ messages: [OutboxMessage]) async throws { try await enqueue(messages, claim: nil) }
}
