import Logging
import ServiceLifecycle
import Synchronization
import TopicGateCore
import TopicGateStore

/// The bookkeeping of delivered pushes, off the delivery path: the messages' completions run (a
/// command records when it was published, or fails when it had no device) and the messages
/// leave the outbox, for all that were delivered in the last few milliseconds (`gather`) at
/// once, while the delivery service goes on publishing. Done inline, these writes made every next publish (and every request's write,
/// queued behind them for the disk) wait for their commit.
///
/// A delivered message is settled only once its publications are routed into their devices'
/// sessions (`PendingDelivery.whenRouted`): one that was not (its broker's connection dropped
/// first) is released instead, and this gateway's next outbox claim delivers it again.
///
/// Until its settlement is written a delivered message stays reserved in `FreshPushes`, so the
/// outbox claims of this gateway never take it again; after a crash before the settlement it is
/// delivered once more on recovery (at least once, as before: payloads carry `pushMessageID`).
final class DeliverySettlement: Service, Sendable {
    private struct State {
        var messages: Set<PushMessageID> = []
        var commands = SettledCommands()
        /// What is being written now.
        var writing: Set<PushMessageID> = []
        /// Acknowledged, waiting to be routed.
        var routing: Set<PushMessageID> = []
    }

    let store: any OutboxStore
    /// Wakes the delivery service to read the outbox again (messages released for redelivery).
    let redeliver: @Sendable () -> Void
    let completion: any PushCompletion
    let fresh: FreshPushes
    let time: TimeSource
    let logger: Logger
    /// How long deliveries are gathered before they are settled together.
    let gather: Duration
    private let state = Mutex(State())
    private let wakeup = Wakeup()

    init(
        store: any OutboxStore, completion: any PushCompletion, fresh: FreshPushes, time: TimeSource, logger: Logger,
        gather: Duration = .milliseconds(10), redeliver: @escaping @Sendable () -> Void = {}
    ) {
        self.store = store
        self.redeliver = redeliver
        self.completion = completion
        self.fresh = fresh
        self.time = time
        self.logger = logger
        self.gather = gather
    }

    /// `messages` were delivered (and `commands`, by app, with them): they are settled soon,
    /// once `routed` says their publications are in the devices' sessions; when it says they
    /// may not be, they are released for another delivery.
    func settle(
        messages: [PushMessageID], commands: SettledCommands,
        once routed: PendingDelivery.Routed = PendingDelivery.alreadyRouted
    ) {
        guard !messages.isEmpty || !commands.isEmpty else { return }
        fresh.reserve(ids: messages)
        state.withLock { state in state.routing.formUnion(messages) }
        routed { [self] routed in
            state.withLock { state in
                state.routing.subtract(messages)
                if routed {
                    state.messages.formUnion(messages)
                    state.commands.merge(commands)
                }
            }
            if routed {
                wakeup.signal()
            } else {
                logger.notice(
                    "Pushes a broker acknowledged may not have reached their sessions; delivering them again",
                    metadata: ["messages": "\(messages.count)"])
                fresh.release(messages)
                redeliver()
            }
        }
    }

    /// Whether `id` waits for its settlement (then it must stay reserved).
    func holds(_ id: PushMessageID) -> Bool {
        state.withLock { state in
            state.writing.contains(id) || state.messages.contains(id) || state.routing.contains(id)
        }
    }

    /// Writes what waits: the completions of the commands, then the messages leave the outbox;
    /// then the messages are released. What could not be written waits for the next call.
    func flush() async throws {
        let (messages, commands) = state.withLock { state in
            defer {
                state.writing.formUnion(state.messages)
                state.messages = []
                state.commands = SettledCommands()
            }
            return (Array(state.messages), state.commands)
        }
        guard !messages.isEmpty || !commands.isEmpty else { return }
        do {
            // The failures first: a crash before the messages leave delivers and completes them
            // again. The commands' first publication is written with the removal, in one write.
            if !commands.unreachable.isEmpty { try await completion.failed(commands.unreachable, at: time.now()) }
            try await store.completeMessages(ids: messages, publishedCommands: commands.published, at: time.now())
        } catch {
            state.withLock { state in
                state.writing.subtract(messages)
                state.messages.formUnion(messages)
                state.commands.merge(commands)
            }
            throw error
        }
        state.withLock { state in state.writing.subtract(messages) }
        fresh.release(messages)
    }

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            await cancelWhenGracefulShutdown { await self.wakeup.wait() }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.gather) }
            do {
                try await flush()
            } catch {
                logger.warning("Cannot settle delivered pushes; trying again", metadata: ["error": "\(error)"])
            }
        }
        // What the last deliveries left.
        try? await flush()
    }
}
