import Synchronization

/// Moves on after every committed change that can alter who may do what: a token revoked, a
/// user or thing disabled or deleted, a group membership, a thing's owners, a subscription, a
/// topic created or deleted; and any update of a user's record but its last-seen time (users
/// are kept in memory too). Caches of such facts keep a value only while the generation it was
/// read at is the current one, so a decision is never made on facts older than a change that
/// returned.
///
/// A store has one only when it sees every change the moment it commits (the embedded SQLite
/// store: its own commits at once, another process's on the same file within a fraction of a
/// second); a store shared by several gateways has none, and those facts are then read on every
/// request.
public final class AccessGeneration: Sendable {
    private let value = Atomic<UInt64>(0)

    public init() {}

    /// Take this before reading: a value read afterwards is current only while this is.
    public var current: UInt64 { value.load(ordering: .acquiring) }

    /// Called once a change committed, before the write that made it returns.
    public func advance() { value.add(1, ordering: .releasing) }
}
