import TopicGateCore

/// How a path names a topic's scope, before it is resolved against the store: the app, a
/// group ID, a user (`me`, ID, address) or a thing (ID, `VENDOR_THING_ID:`).
enum TopicScopeReference: Sendable {
    case app
    case group(GroupID)
    case user(UserReference)
    case thing(ThingReference)
}

/// A scope that exists, with the group's owner for a group scope.
struct ResolvedScope: Sendable {
    let scope: TopicScope
    let groupOwner: UserID?
}
