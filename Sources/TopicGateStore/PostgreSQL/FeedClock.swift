import Synchronization

/// When the change feed last carried something (a change or a heartbeat), and whether its
/// listening began.
final class FeedClock: Sendable {
    private let last = Mutex(ContinuousClock.now)
    private let listening = Atomic<Bool>(false)

    /// Listening began on the connection: it works.
    func began() {
        listening.store(true, ordering: .relaxed)
        mark()
    }

    func mark() { last.withLock { $0 = .now } }

    var sinceLast: Duration { ContinuousClock.now - last.withLock { $0 } }

    var hasBegun: Bool { listening.load(ordering: .relaxed) }
}
