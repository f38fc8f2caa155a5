import Logging
import ServiceLifecycle
import Synchronization
import TopicGateCore
import TopicGateStore

/// The way to devices, for topic sends and commands alike, with one way in (`dispatch`):
/// write → publish → acknowledge → settle → retry → dead-letter.
///
/// 1. **Write.** A message is written to the durable outbox, claimed by this gateway, before
///    `dispatch` returns (so that whoever dispatched it may answer its request: it survives a
///    crash). A message with a record of its own (a command, its results) is written with that
///    record, in one transaction; the others are written together (group commit: while one
///    transaction is synced to disk, the messages that arrive wait and go in the next, so N
///    concurrent sends cost one sync, not N).
/// 2. **Publish.** Once on disk, a message with few recipients is published by the task that
///    wrote it (no hand-over between tasks); the others go to the delivery service in memory
///    (`FreshPushes`), woken for them. The delivery service also takes, from the outbox, what
///    failed, what waited for a broker and what a gateway that died left.
/// 3. **Acknowledge and settle.** The brokers' acknowledgements settle a message
///    (`DeliverySettlement`): its completion runs (a command records when it was published,
///    or fails when it had no device: `PushCompletion`) and it leaves the outbox. A failure is
///    recorded and tried again, alone; a message that keeps failing, or that the broker
///    refuses, becomes a dead letter (its command `SEND_FAILED`).
///
/// A traced message (the admin's test push) records each device's way there: pending when
/// dispatched, then what the broker made of it (`trace(of:appID:)`).
///
/// Nothing in the pipeline calls back into the services: they hand a message over and learn
/// its outcome only through the completion the message names.
final class PushPipeline: PushDispatcher {
    private typealias Waiter = (message: OutboxMessage, continuation: CheckedContinuation<Void, any Error>)

    private struct State {
        var waiting: [Waiter] = []
        var writing = false
    }

    /// Publishes, records outcomes, retries; holds the outbox, the fresh pushes, this gateway's
    /// ID, the lease of its claims, the clock and the settlement the pipeline shares.
    let delivery: PushDeliveryService
    /// A message with at most this many recipients is published by the writing task; a fan-out
    /// to more reaches its devices sooner from the delivery service, which publishes while the
    /// writing task answers its request.
    let publishedHereUpTo: Int
    private let state = Mutex(State())

    static let fewRecipients = 8

    init(
        delivery: PushDeliveryService, publishedHereUpTo: Int = PushPipeline.fewRecipients
    ) {
        self.delivery = delivery
        self.publishedHereUpTo = publishedHereUpTo
    }

    /// The pipeline of a gateway: delivery over `link`, settled off the delivery path, each
    /// message completed by `completion`; `wakeup` is signalled when a broker (re)connects too.
    convenience init(
        store: any OutboxStore & DeliveryTraceStore & InstallationStore & StatesCaching, link: any DeviceLink,
        completion: any PushCompletion, wakeup: Wakeup, gatewayID: String,
        lease: Duration, time: TimeSource, logger: Logger, metrics: ServerMetrics, presence: DevicePresence
    ) {
        self.init(
            delivery: PushDeliveryService(
                store: store, devices: LiveEndpoints(store: store), link: link, wakeup: wakeup, time: time,
                logger: logger, metrics: metrics, completion: completion, gatewayID: gatewayID,
                outboxLease: lease, presence: presence))
    }

    func trace(of messageID: PushMessageID, appID: AppID) async throws -> [DeviceDelivery] {
        try await delivery.trace(of: messageID, appID: appID)
    }

    /// What runs for the pipeline: the settlement before the delivery service, so that it is
    /// stopped after it and settles what the last deliveries left.
    var services: [any Service] { [delivery.settlement, delivery] }

    func dispatch(_ message: OutboxMessage, storing record: ((QueuedPush?) async throws -> Void)?) async throws {
        guard !message.recipients.isEmpty else {
            try await record?(nil)
            return
        }
        if message.traced { try await delivery.beginTrace(message) }
        guard let record else { return try await enqueue(message) }
        try await claim([message]) { claim in try await record(QueuedPush(message: message, claim: claim)) }
    }

    /// Waits for the next group write to carry `message`.
    private func enqueue(_ message: OutboxMessage) async throws {
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

    /// Writes `messages` in one transaction and publishes or hands them over.
    private func write(_ messages: [OutboxMessage]) async throws {
        try await claim(messages) { claim in try await delivery.store.enqueue(messages, claim: claim) }
    }

    /// Reserves `messages`, writes them with `write` and publishes or hands them over
    /// (`PushDeliveryService.admit`); those with few recipients are published by this task.
    private func claim(_ messages: [OutboxMessage], _ write: (OutboxClaim) async throws -> Void) async throws {
        try await delivery.admit(messages, publishedHereUpTo: publishedHereUpTo, write)
    }
}
