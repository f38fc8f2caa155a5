import Synchronization
import TopicGateCore

/// Apps by ID, each kept for `lifetime` milliseconds after it was read.
final class AppCache: Sendable {
    let lifetime: Int64
    private let entries = Mutex<[String: (app: App, until: Int64)]>([:])

    init(lifetime: Int64) {
        self.lifetime = lifetime
    }

    func app(_ id: String, now: Int64) -> App? {
        entries.withLock { entries in
            guard let entry = entries[id], entry.until > now else { return nil }
            return entry.app
        }
    }

    func keep(_ app: App, now: Int64) {
        entries.withLock { entries in
            if entries.count > 10_000 { entries = entries.filter { $0.value.until > now } }
            entries[app.id.rawValue] = (app, now + lifetime)
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
