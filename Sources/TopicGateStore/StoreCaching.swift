/// What a store lets its gateway keep in memory, a capability each engine states: how the
/// gateway learns that a fact it keeps (a token's holder, a topic's ACL, a group's members, a
/// thing's owners, a recipient's installations) has changed.
public enum StoreCaching: Sendable {
    /// The store sees every committed change the moment it commits (the embedded SQLite store:
    /// its own commits at once, another process's on the same file within a fraction of a
    /// second). Facts are kept while the generation they were read at stands.
    case generations(StoreGenerations)
    /// A store several gateways share: the generations move on for this gateway's own commits
    /// before they return, and for the others' when the change feed brings them (within
    /// milliseconds). They are trusted only while the feed is heard (`CacheInvalidationService`
    /// trusts and distrusts them); until then every request reads what it decides on.
    case sharedGenerations(StoreGenerations)

    /// The generations, whoever moves them.
    public var generations: StoreGenerations {
        switch self {
        case .generations(let generations), .sharedGenerations(let generations): generations
        }
    }

    /// Whether other gateways change the same data (so counts kept here go stale unseen).
    public var isShared: Bool {
        if case .generations = self { false } else { true }
    }
}

/// A store, as far as it states what its gateway may keep in memory.
public protocol StatesCaching: Sendable {
    /// What the gateway may keep in memory of what this store holds, and how it learns of changes.
    var caching: StoreCaching { get }
}

extension StatesCaching {
    /// The generation access facts are kept under.
    public var accessGeneration: AccessGeneration { caching.generations.access }

    /// The generation principals and what they belong to or own are kept under (not moved by
    /// subscriptions and topics).
    public var relationsGeneration: AccessGeneration { caching.generations.relations }

    /// The generation token holders and apps are kept under.
    public var identityGeneration: AccessGeneration { caching.generations.identity }

    /// The generation recipients' installations are kept under.
    public var installationGeneration: AccessGeneration { caching.generations.installations }
}
