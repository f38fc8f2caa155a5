import Synchronization

/// Moves on after every committed change that can alter who may do what: a token revoked, a
/// user or thing disabled or deleted, a group membership, a thing's owners, a subscription, a
/// topic created or deleted; and any update of a user's record but its last-seen time (users
/// are kept in memory too). Caches of such facts keep a value only while the generation it was
/// read at is the current one, so a decision is never made on facts older than a change that
/// returned.
///
/// The embedded store moves it on for every commit it sees (its own at once, another process's
/// on the same file within a fraction of a second). A store shared by several gateways moves it
/// on for its own commits before they return, and for the other gateways' when their change
/// reaches this one through the change feed; while the feed is not heard the generation is
/// `distrust`ed: it moves on at every reading, so nothing kept is current and nothing read is
/// kept (every request reads through).
public final class AccessGeneration: Sendable {
    private let value = Atomic<UInt64>(0)
    private let trusted: Atomic<Bool>

    /// `trusted: false` for a generation that waits for its change feed to be heard.
    public init(trusted: Bool = true) {
        self.trusted = Atomic(trusted)
    }

    /// Take this before reading: a value read afterwards is current only while this is.
    public var current: UInt64 {
        if trusted.load(ordering: .acquiring) { return value.load(ordering: .acquiring) }
        return value.add(1, ordering: .acquiringAndReleasing).newValue
    }

    /// Whether values read at this generation may be kept.
    public var isTrusted: Bool { trusted.load(ordering: .acquiring) }

    /// Called once a change committed, before the write that made it returns.
    public func advance() { value.add(1, ordering: .releasing) }

    /// Nothing kept counts, and nothing read is kept, until `trust()`.
    public func distrust() {
        trusted.store(false, ordering: .releasing)
        advance()
    }

    /// Starts over, trusted: what was read before is not current.
    public func trust() {
        advance()
        trusted.store(true, ordering: .releasing)
    }
}
