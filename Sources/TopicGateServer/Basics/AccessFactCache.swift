import Synchronization
import TopicGateStore

/// Facts about access read from the store (a token's holder, a user's groups and things, a
/// topic's subscribers), kept in memory while the store's `AccessGeneration` stays where it
/// was when they were read. Any change that could alter them moves the generation on, before
/// its request returns, and every value read before it stops counting at once.
///
/// While the generation is not trusted (a shared store whose change feed is not heard)
/// nothing is kept: every value is read.
final class AccessFactCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        let generation: UInt64
        var value: Value
    }

    private let generation: AccessGeneration
    private let entries = Mutex<[Key: Entry]>([:])
    /// At most this many values are kept; past it the cache starts over.
    let capacity: Int

    init(generation: AccessGeneration, capacity: Int = 100_000) {
        self.generation = generation
        self.capacity = capacity
    }

    /// The value kept for `key` if still current; otherwise `load`'s, kept unless a change
    /// committed while it was read.
    func value(_ key: Key, load: () async throws -> Value?) async throws -> Value? {
        guard generation.isTrusted else { return try await load() }
        // Taken before the read: a change committed meanwhile makes the read stale.
        let readAt = generation.current
        if let entry = entries.withLock({ $0[key] }), entry.generation == readAt { return entry.value }
        guard let value = try await load() else { return nil }
        entries.withLock { entries in
            guard generation.current == readAt else { return }
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = Entry(generation: readAt, value: value)
        }
        return value
    }

    /// The values of `keys`: those kept and current from memory, the others from one `load` of
    /// them all (kept unless a change committed while they were read). A key `load` gives no
    /// value for has none. More keys than the capacity are read, not kept.
    func values(_ keys: [Key], load: ([Key]) async throws -> [Key: Value]) async throws -> [Key: Value] {
        guard generation.isTrusted, keys.count <= capacity else { return try await load(keys) }
        let readAt = generation.current
        var found: [Key: Value] = [:]
        found.reserveCapacity(keys.count)
        var missing: [Key] = []
        entries.withLock { entries in
            for key in keys {
                if let entry = entries[key], entry.generation == readAt {
                    found[key] = entry.value
                } else {
                    missing.append(key)
                }
            }
        }
        guard !missing.isEmpty else { return found }
        let loaded = try await load(missing)
        entries.withLock { entries in
            guard generation.current == readAt else { return }
            if entries.count + loaded.count > capacity { entries.removeAll(keepingCapacity: true) }
            for (key, value) in loaded { entries[key] = Entry(generation: readAt, value: value) }
        }
        if found.isEmpty { return loaded }
        found.merge(loaded) { _, read in read }
        return found
    }

    /// Changes a kept value in place (for what the store changed without moving the generation,
    /// such as a user's last-seen time).
    func modify(_ key: Key, _ change: (inout Value) -> Void) {
        entries.withLock { entries in
            guard var entry = entries[key] else { return }
            change(&entry.value)
            entries[key] = entry
        }
    }
}
