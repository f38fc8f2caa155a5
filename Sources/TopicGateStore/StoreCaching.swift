/// What a store lets its gateway keep in memory, a capability each engine states: how the
/// gateway learns that a fact it keeps (a token's holder, a topic's ACL, a group's members, a
/// thing's owners, a recipient's installations) has changed.
public enum StoreCaching: Sendable {
    /// The store sees every committed change the moment it commits (the embedded SQLite store:
    /// its own commits at once, another process's on the same file within a fraction of a
    /// second). Facts are kept while the generation they were read at stands: `access` for
    /// what decides who may do what, `installations` for which devices a push goes to.
    case generations(access: AccessGeneration, installations: AccessGeneration)
    /// Other gateways change the database unseen until their change reaches this one: nothing
    /// about access is kept, every request reads what it decides on.
    case readThrough
}

/// A store, as far as it states what its gateway may keep in memory.
public protocol StatesCaching: Sendable {
    /// What the gateway may keep in memory of what this store holds, and how it learns of changes.
    var caching: StoreCaching { get }
}

extension StatesCaching {
    /// The generation access facts are kept under; nil when nothing about access may be kept.
    public var accessGeneration: AccessGeneration? {
        if case .generations(let access, _) = caching { access } else { nil }
    }

    /// The generation recipients' installations are kept under; nil when they may not be kept.
    public var installationGeneration: AccessGeneration? {
        if case .generations(_, let installations) = caching { installations } else { nil }
    }
}
