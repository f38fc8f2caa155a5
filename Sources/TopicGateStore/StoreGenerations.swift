/// The generations a gateway keeps the facts it caches under, each moved on by the changes that
/// can alter those facts (`WatchedChanges`).
public struct StoreGenerations: Sendable {
    /// What decides who may do what: tokens, users and things, memberships, ownerships,
    /// subscriptions, topics (`WatchedChanges.access`). Moves on whenever `relations` does.
    public let access: AccessGeneration
    /// A principal and what it belongs to or owns, a part of `access` (`WatchedChanges.standing`):
    /// a subscription or a topic does not move it, so the facts kept under it (a user's groups
    /// and things, a thing and its owners) outlive devices subscribing and unsubscribing. Moves
    /// on whenever `identity` does.
    public let relations: AccessGeneration
    /// A token's holder and an app, a part of `access` (`WatchedChanges.identity`): a grant,
    /// a subscription or a membership does not move it.
    public let identity: AccessGeneration
    /// Which devices a push goes to (`WatchedChanges.installations`).
    public let installations: AccessGeneration
    /// Topics and their ACLs, told change by change rather than by a generation: a send's
    /// decision reads one topic, which one change of another topic need not drop.
    public let topics = TopicChangeSignal()

    /// `trusted: false` for generations that wait for their change feed to be heard.
    public init(trusted: Bool) {
        access = AccessGeneration(trusted: trusted)
        relations = AccessGeneration(trusted: trusted)
        identity = AccessGeneration(trusted: trusted)
        installations = AccessGeneration(trusted: trusted)
    }

    /// Every one, for what moves or distrusts them all.
    public var all: [AccessGeneration] { [access, relations, identity, installations] }
}
