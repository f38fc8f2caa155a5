import Synchronization
import TopicGateCore
import TopicGateStore

/// The way to devices: writes a message to the durable outbox (so that whoever enqueued it may
/// answer its request once it survives a crash), claimed by this gateway, then publishes it at
/// once when it has few recipients, or else hands it to the delivery service in memory
/// (`FreshPushes`), waking it.
///
/// Group commit: while one transaction is being synced to disk, the messages that arrive wait
/// and go together in the next one, so that N concurrent sends cost one sync, not N. Each
/// caller still returns only once its own message is on disk.
final class Outbox: Sendable {
    private typealias Waiter = (message: OutboxMessage, continuation: CheckedContinuation<Void, any Error>)

    private struct State {
        var waiting: [Waiter] = []
        var writing = false
    }

    let store: any OutboxStore
    let wakeup: Wakeup
    let fresh: FreshPushes
    /// This gateway, as the claims of what it writes name it, and how long they last.
    let gatewayID: String
    let lease: Duration
    let time: TimeSource
    /// Publishes what was written from the writing task itself, at once (nil: the delivery
    /// service publishes everything).
    let delivery: PushDeliveryService?
    private let state = Mutex(State())

    init(
        store: any OutboxStore, wakeup: Wakeup, fresh: FreshPushes, gatewayID: String, lease: Duration,
        time: TimeSource,
        delivery: PushDeliveryService? = nil
    ) {
        self.store = store
        self.wakeup = wakeup
        self.fresh = fresh
        self.gatewayID = gatewayID
        self.lease = lease
        self.time = time
        self.delivery = delivery
    }

    func enqueue(_ message: OutboxMessage) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let startWriter = state.withLock { state in
                state.waiting.append((message, continuation))
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            if startWriter { Task { await self.writeWaiting() } }
        }
    }

    /// Stores `message` through `store`, which writes it (as the `QueuedPush` it is given) in the
    /// same transaction as the record it belongs to, then hands it to the delivery service. One
    /// durable write for both, instead of the record's and then the outbox's own.
    func enqueue(_ message: OutboxMessage, storing store: (QueuedPush) async throws -> Void) async throws {
        try await claim([message]) { gateway, leaseUntil in
            try await store(QueuedPush(message: message, claimedBy: gateway, leaseUntil: leaseUntil))
        }
    }

    /// Writes what waits, batch after batch, until nothing does.
    private func writeWaiting() async {
        while true {
            let batch = state.withLock { state in
                let batch = state.waiting
                state.waiting = []
                if batch.isEmpty { state.writing = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                try await write(batch.map(\.message))
                for waiter in batch { waiter.continuation.resume() }
            } catch {
                // One bad message must not fail the others: each alone.
                for waiter in batch {
                    do {
                        try await write([waiter.message])
                        waiter.continuation.resume()
                    } catch {
                        waiter.continuation.resume(throwing: error)
                    }
                }
            }
        }
    }

    /// Writes `messages` in one transaction and hands them to the delivery service.
    private func write(_ messages: [OutboxMessage]) async throws {
        try await claim(messages) { gateway, leaseUntil in
            try await store.enqueue(messages, claimedBy: gateway, leaseUntil: leaseUntil)
        }
    }

    /// A message with at most this many recipients is published by the writing task; a fan-out
    /// to more reaches its devices sooner from the delivery service, which publishes while the
    /// writing task answers its request.
    static let publishedHereUpTo = 8

    /// Reserves `messages` among the fresh pushes, runs `write` with this gateway's claim on them
    /// (its ID and the lease's end), then publishes those with few recipients (when the broker is
    /// connected and not too many published batches wait for their outcome), leaving their
    /// outcome to the brokers' answers (`PushDeliveryService.follow`), and hands the others to
    /// the delivery service, waking it; releases them all when the write fails. Publishing here
    /// spares a push a hand-over between tasks (a wake-up of another thread) before it leaves.
    private func claim(_ messages: [OutboxMessage], _ write: (String, Int64) async throws -> Void) async throws {
        fresh.reserve(messages)
        do {
            try await write(gatewayID, time.now() + lease.wholeMilliseconds)
        } catch {
            fresh.release(messages.map(\.id))
            throw error
        }
        let publishedHere = { (message: OutboxMessage) in message.recipients.count <= Self.publishedHereUpTo }
        let here = messages.filter(publishedHere)
        if !here.isEmpty, let delivery, delivery.link.isReady, fresh.mayStart,
            let started = try? await delivery.start(here)
        {
            delivery.follow(started)
            let others = messages.filter { !publishedHere($0) }
            guard !others.isEmpty else { return }
            fresh.handOver(others)
        } else {
            fresh.handOver(messages)
        }
        wakeup.signal()
    }
}
