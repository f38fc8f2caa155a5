import Synchronization
import TopicGateCore
import TopicGateStore

/// Apps by ID, each kept for `lifetime` milliseconds after it was read, and only while
/// `generation` (when the store has one) stays where it was: a new client secret, made by this
/// process or by the CLI on the same file, is seen as soon as the generation moves.
final class AppCache: Sendable {
    let lifetime: Duration
    let generation: AccessGeneration?
    private let entries = Mutex<[String: (app: App, until: UnixMillis, generation: UInt64)]>([:])

    init(lifetime: Duration, generation: AccessGeneration? = nil) {
        self.lifetime = lifetime
        self.generation = generation
    }

    /// False while what invalidates this cache may have gone silent (see `TopicCache`).
    private let trusted = Atomic<Bool>(true)

    func distrust() {
        trusted.store(false, ordering: .releasing)
        forgetAll()
    }

    func trust() {
        forgetAll()
        trusted.store(true, ordering: .releasing)
    }

    func app(_ id: String, now: UnixMillis) -> App? {
        guard trusted.load(ordering: .acquiring) else { return nil }
        let current = generation?.current ?? 0
        return entries.withLock { entries in
            guard let entry = entries[id], entry.until > now, entry.generation == current else { return nil }
            return entry.app
        }
    }

    /// Keeps `app`, read at `generation` (taken before the read).
    func keep(_ app: App, now: UnixMillis, readAt generation: UInt64) {
        guard trusted.load(ordering: .acquiring) else { return }
        entries.withLock { entries in
            if entries.count > 10_000 { entries = entries.filter { $0.value.until > now } }
            entries[app.id.rawValue] = (app, now + lifetime, generation)
        }
    }

    /// Drops `id` (its credentials changed on another gateway).
    func forget(_ id: AppID) {
        _ = entries.withLock { $0.removeValue(forKey: id.rawValue) }
    }

    func forgetAll() {
        entries.withLock { $0.removeAll() }
    }
}
