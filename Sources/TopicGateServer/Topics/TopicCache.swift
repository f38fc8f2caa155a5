import Synchronization
import TopicGateCore
import TopicGateStore

/// Topics with their ACL entries, kept in memory so that a decision on the send path needs no
/// database round trip once a topic is loaded. The store tells it of every change
/// (`TopicChangeSignal`): this gateway's own before the write returns, so a decision is never
/// made on entries older than the last change that returned; the others' as soon as it
/// learns of them.
///
/// A read that raced with a change must not put the old entries back after the change's
/// invalidation: each key has a generation that every invalidation moves on, a reader takes
/// it before reading the store, and `put` keeps the value only if it has not moved.
final class TopicCache: Sendable {
    typealias Key = InApp<TopicAddress>

    /// Where a key's invalidations stood when a read began.
    struct Generation: Sendable, Equatable {
        let epoch: UInt64
        let key: UInt64
    }

    private struct State {
        var topics: [Key: (Topic, [ACLEntry])] = [:]
        /// Invalidations per key since the epoch began.
        var generations: [Key: UInt64] = [:]
        /// Moves on when everything is forgotten at once.
        var epoch: UInt64 = 0

        func generation(_ key: Key) -> Generation { Generation(epoch: epoch, key: generations[key] ?? 0) }

        mutating func forgetAll() {
            topics.removeAll(keepingCapacity: true)
            generations.removeAll(keepingCapacity: true)
            epoch += 1
        }
    }

    private let state = Mutex(State())
    /// False while what invalidates this cache may have gone silent (a shared database's
    /// change feed missed its heartbeat): nothing is served from it or kept in it then.
    private let trusted = Atomic<Bool>(true)
    /// At most this many topics (and invalidated keys) are kept; past it the cache starts over.
    let capacity: Int

    init(capacity: Int = 100_000) { self.capacity = capacity }

    /// A cache that `signal` tells of every change (its store's `StoreGenerations.topics`).
    convenience init(told signal: TopicChangeSignal, capacity: Int = 100_000) {
        self.init(capacity: capacity)
        signal.listen { [weak self] change in self?.forget(change) }
    }

    /// Drops what `change` may have made stale.
    func forget(_ change: TopicChange) {
        switch change {
        case .topic(let appID, let address): invalidate(appID, address)
        case .all: invalidateAll()
        }
    }

    func get(_ appID: AppID, _ address: TopicAddress) -> (Topic, [ACLEntry])? {
        guard trusted.load(ordering: .acquiring) else { return nil }
        return state.withLock { $0.topics[Key(appID, address)] }
    }

    /// Serves and keeps nothing until `trust()`: every read goes to the store.
    func distrust() {
        trusted.store(false, ordering: .releasing)
        invalidateAll()
    }

    /// Starts over, trusted again: what was read while distrusted is not kept.
    func trust() {
        invalidateAll()
        trusted.store(true, ordering: .releasing)
    }

    /// Take this before reading the topic from the store, and hand it to `put`.
    func generation(_ appID: AppID, _ address: TopicAddress) -> Generation {
        state.withLock { $0.generation(Key(appID, address)) }
    }

    /// Keeps `value`, read from the store after `readAt` was taken, unless the key was
    /// invalidated since.
    func put(_ appID: AppID, _ address: TopicAddress, _ value: (Topic, [ACLEntry]), readAt: Generation) {
        let key = Key(appID, address)
        guard trusted.load(ordering: .acquiring) else { return }
        state.withLock { state in
            guard state.generation(key) == readAt else { return }
            if state.topics.count >= capacity { state.forgetAll() }
            state.topics[key] = value
        }
    }

    /// Keeps `value`, the topic as this gateway's own change of it left it, if that change's own
    /// invalidation is the only one the key saw since `readAt`, taken before the topic was read
    /// for the change: nothing else changed it meanwhile that this gateway heard of, and what
    /// changes it later invalidates it as usual.
    func putChanged(_ appID: AppID, _ address: TopicAddress, _ value: (Topic, [ACLEntry]), readAt: Generation) {
        put(appID, address, value, readAt: Generation(epoch: readAt.epoch, key: readAt.key + 1))
    }

    func invalidate(_ appID: AppID, _ address: TopicAddress) {
        let key = Key(appID, address)
        state.withLock { state in
            if state.generations.count >= capacity { state.forgetAll() }
            state.topics.removeValue(forKey: key)
            state.generations[key, default: 0] += 1
        }
    }

    /// Forgets everything: after a user, group or thing is deleted, which deletes its topics
    /// and every entry naming it, and when trust is lost or regained.
    func invalidateAll() {
        state.withLock { $0.forgetAll() }
    }
}
