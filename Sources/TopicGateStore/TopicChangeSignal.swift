import Synchronization

/// Where a store tells its gateway what changed among topics: the gateway's own commits once
/// they commit, before the write returns; another gateway's when the change feed brings them
/// (`StoreChange.topic`); another process's on the same SQLite file when noticed. The topic
/// cache listens, so no service has to remember to invalidate it.
public final class TopicChangeSignal: Sendable {
    private let listeners = Mutex<[@Sendable (TopicChange) -> Void]>([])

    public init() {}

    /// Calls `listener` with every change announced from now on, on the announcer's task.
    public func listen(_ listener: @escaping @Sendable (TopicChange) -> Void) {
        listeners.withLock { $0.append(listener) }
    }

    public func announce(_ change: TopicChange) {
        for listener in listeners.withLock({ $0 }) { listener(change) }
    }
}
