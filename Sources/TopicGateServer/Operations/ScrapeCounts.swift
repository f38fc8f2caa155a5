import Synchronization
import TopicGateCore
import TopicGateStore

/// What a metrics scrape reads from the database (outbox depth, dead letters, commands by
/// state), kept for `freshness`: however often scrapers ask, the database counts at most that
/// often.
final class ScrapeCounts: Sendable {
    struct Counts: Sendable {
        let outboxDepth: Int
        let deadLetters: Int
        let commandStates: [CommandState: Int]
    }

    let store: any OutboxStore & CommandStore
    let freshness: Duration
    private let kept = Mutex<(at: ContinuousClock.Instant, counts: Counts)?>(nil)

    init(store: any OutboxStore & CommandStore, freshness: Duration = .seconds(5)) {
        self.store = store
        self.freshness = freshness
    }

    /// The kept figures while they are fresh, else new ones from the store.
    func read() async throws -> Counts {
        let now = ContinuousClock.now
        if let kept = kept.withLock({ $0 }), now - kept.at < freshness { return kept.counts }
        let counts = Counts(
            outboxDepth: try await store.pendingMessageCount(), deadLetters: try await store.deadLetterCount(),
            commandStates: try await store.commandStateCounts())
        kept.withLock { $0 = (now, counts) }
        return counts
    }
}
