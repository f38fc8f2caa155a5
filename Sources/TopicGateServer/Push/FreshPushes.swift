import Synchronization
import TopicGateCore

/// Messages this gateway accepted, handed from the outbox writer straight to the delivery
/// service once they are on disk, so that a fresh push costs no outbox read and no claim (they
/// are stored claimed by this gateway). The outbox stays the record: what is not delivered
/// from here (a failed publish, a crash) is found there again.
///
/// A message is *reserved* before its write begins and stays so until the delivery service has
/// settled it; the outbox claims of this gateway skip reserved messages, so a message is never
/// delivered from memory and from the outbox at once. A claim also skips what was released while
/// it ran: it may have read a message just before its settlement removed it from the outbox.
final class FreshPushes: Sendable {
    private struct State {
        var queue: [OutboxMessage] = []
        var reserved: Set<PushMessageID> = []
        var started: [StartedBatch] = []
        /// Batches published by their request whose acknowledgements are still to come.
        var followed = 0
        /// Outbox claims being made now (`claim`), and what was released since the first of them
        /// began.
        var claims = 0
        var releasedDuringClaims: Set<PushMessageID> = []
    }

    private let state = Mutex(State())
    /// At most this many messages wait in memory; past it they wait in the outbox only (a
    /// broker that is down for long must not fill the memory).
    let capacity: Int

    /// At most about this many batches that requests published themselves wait for their
    /// outcome (their acknowledgements, or the delivery service); past it, a request leaves its
    /// messages to the delivery service, so that a broker that stalls cannot fill
    /// libmosquitto's queue at the pace of the requests.
    let startedCapacity: Int

    init(capacity: Int = 20_000, startedCapacity: Int = 64) {
        self.capacity = capacity
        self.startedCapacity = startedCapacity
    }

    /// Whether a request may publish what it wrote itself.
    var mayStart: Bool { state.withLock { $0.started.count + $0.followed < startedCapacity } }

    /// A batch a request published whose acknowledgements are awaited (`PushPipeline.follow`).
    func follow() {
        state.withLock { $0.followed += 1 }
    }

    /// Its acknowledgements came, or it was given up on.
    func followed() {
        state.withLock { $0.followed -= 1 }
    }

    /// Messages on disk that their request published already, whose outcome the delivery
    /// service records before it takes anything else. They stay reserved until released.
    func handOver(_ started: StartedBatch) {
        state.withLock { $0.started.append(started) }
    }

    /// The oldest published batch that waits for its outcome.
    func takeStarted() -> StartedBatch? {
        state.withLock { state in state.started.isEmpty ? nil : state.started.removeFirst() }
    }

    /// Before the messages are written.
    func reserve(_ messages: [OutboxMessage]) {
        state.withLock { $0.reserved.formUnion(messages.map(\.id)) }
    }

    /// Messages delivered but not yet settled (`DeliverySettlement`).
    func reserve(ids: some Sequence<PushMessageID>) {
        state.withLock { $0.reserved.formUnion(ids) }
    }

    /// Once they are on disk: they wait here for the delivery service, in the order written.
    /// Past the capacity they are left to the outbox.
    func handOver(_ messages: [OutboxMessage]) {
        state.withLock { state in
            let room = max(0, capacity - state.queue.count)
            state.queue += messages.prefix(room)
            state.reserved.subtract(messages.dropFirst(room).map(\.id))
        }
    }

    /// Messages that were not written, or that the delivery service settled (delivered, or
    /// recorded in the outbox for another try).
    func release(_ ids: some Sequence<PushMessageID>) {
        state.withLock { state in
            let ids = Array(ids)
            state.reserved.subtract(ids)
            if state.claims > 0 { state.releasedDuringClaims.formUnion(ids) }
        }
    }

    /// Up to `limit` waiting messages, oldest first; they stay reserved until released.
    func take(limit: Int) -> [OutboxMessage] {
        state.withLock { state in
            let batch = Array(state.queue.prefix(limit))
            state.queue.removeFirst(batch.count)
            return batch
        }
    }

    /// `messages` without those reserved here.
    func unreserved(_ messages: [OutboxMessage]) -> [OutboxMessage] {
        state.withLock { state in messages.filter { !state.reserved.contains($0.id) } }
    }

    /// What an outbox claim of this gateway may deliver: the messages `read` claimed, without
    /// those reserved here nor those released while it ran. A claim can read a delivered message
    /// an instant before its settlement deletes it and releases it; taken as unreserved, that
    /// message would be published a second time.
    func claim(_ read: () async throws -> [OutboxMessage]) async rethrows -> [OutboxMessage] {
        state.withLock { $0.claims += 1 }
        defer {
            state.withLock { state in
                state.claims -= 1
                if state.claims == 0 { state.releasedDuringClaims = [] }
            }
        }
        let claimed = try await read()
        return state.withLock { state in
            claimed.filter { !state.reserved.contains($0.id) && !state.releasedDuringClaims.contains($0.id) }
        }
    }
}
