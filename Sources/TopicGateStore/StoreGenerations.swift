/// The generations a gateway keeps the facts it caches under, each moved on by the changes that
/// can alter those facts (`WatchedChanges`).
public struct StoreGenerations: Sendable {
    /// What decides who may do what: tokens, users and things, memberships, ownerships,
    /// subscriptions, topics (`WatchedChanges.access`). Moves on whenever `identity` does.
    public let access: AccessGeneration
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
        identity = AccessGeneration(trusted: trusted)
        installations = AccessGeneration(trusted: trusted)
    }

    /// All three, for what moves or distrusts every one.
    public var all: [AccessGeneration] { [access, identity, installations] }
}
