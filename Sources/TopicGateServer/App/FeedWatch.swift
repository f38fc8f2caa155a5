import Synchronization

/// When this gateway last heard its change feed, and whether its caches are trusted now.
final class FeedWatch: Sendable {
    private let heard = Mutex(ContinuousClock.now)
    /// Nothing is trusted until the feed is first heard.
    private let trusted = Atomic<Bool>(false)

    /// The feed carried something. True when the caches were distrusted until now.
    func heardNow() -> Bool {
        heard.withLock { $0 = .now }
        return trusted.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
    }

    /// True when the feed has been silent for more than `deadline` and the caches were still
    /// trusted: from now on they are not.
    func silent(beyond deadline: Duration) -> Duration? {
        let silence = ContinuousClock.now - heard.withLock { $0 }
        guard silence > deadline else { return nil }
        return trusted.compareExchange(expected: true, desired: false, ordering: .relaxed).exchanged ? silence : nil
    }
}
