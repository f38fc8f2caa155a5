import TopicGateCore
import TopicGateStore

/// The facts access decisions read, kept in memory while the store's generation they depend on
/// stands (any change to a membership, an ownership, a thing or a principal moves the relations
/// generation on before its request returns, and another gateway's change when the change feed
/// brings it; a subscription or a topic moves only the access generation, which the topics'
/// subscribers are kept under) and read from the store on every request while the generation is
/// not trusted (a shared store whose feed is not heard):
/// - a user's groups and owned things (`AccessContext`, what `AccessPolicy` needs),
/// - each topic's subscribers with theirs (a send's recipients),
/// - the thing a path names and its owners (a command, its results, a state report),
/// - the gateway a thing's commands go to, when it is an end node.
struct AccessFacts: Sendable {
    let store: any TopicStore & ThingStore & EndNodeStore & StatesCaching
    let users: AccessFactCache<InApp<UserID>, AccessContext>
    let subscribers: AccessFactCache<InApp<TopicAddress>, [(subscriber: Subscriber, context: AccessContext)]>
    /// Each topic's subscribers without their contexts (a send whose entries let everyone receive).
    let subscriberLists: AccessFactCache<InApp<TopicAddress>, [Subscriber]>
    let things: AccessFactCache<InApp<ThingReference>, Thing>
    let owners: AccessFactCache<InApp<ThingID>, Set<Owner>>
    /// Each thing's end-node attachment (`none` for most things).
    let endNodes: AccessFactCache<InApp<ThingID>, EndNodeAttachment>

    init(store: any TopicStore & ThingStore & EndNodeStore & StatesCaching) {
        self.store = store
        // A subscriber's entry holds its context too: it is kept under `access`, which every
        // change of `relations` moves as well.
        let listeners = store.accessGeneration
        let relations = store.relationsGeneration
        users = AccessFactCache(generation: relations)
        subscribers = AccessFactCache(generation: listeners, capacity: 10_000)
        subscriberLists = AccessFactCache(generation: listeners, capacity: 10_000)
        things = AccessFactCache(generation: relations, capacity: 20_000)
        owners = AccessFactCache(generation: relations, capacity: 20_000)
        endNodes = AccessFactCache(generation: relations, capacity: 20_000)
    }

    func context(appID: AppID, principal: Principal) async throws -> AccessContext {
        guard case .user(let id) = principal else { return AccessContext(principal: principal) }
        let context = try await users.value(InApp(appID, id)) {
            try await store.accessContexts(appID: appID, users: [id])[id]
        }
        return context ?? AccessContext(principal: principal)
    }

    /// Each subscriber of the topic with its context, in subscriber order (so that a send to a
    /// large topic does not sort its recipients each time).
    func subscriberContexts(appID: AppID, address: TopicAddress) async throws
        -> [(subscriber: Subscriber, context: AccessContext)]
    {
        try await subscribers.value(InApp(appID, address)) {
            try await store.subscriberContexts(appID: appID, address: address).sorted { $0.key < $1.key }.map {
                (subscriber: $0.key, context: $0.value)
            }
        } ?? []
    }

    /// Each subscriber of the topic, in subscriber order, without reading its groups and things.
    func subscriberList(appID: AppID, address: TopicAddress) async throws -> [Subscriber] {
        try await subscriberLists.value(InApp(appID, address)) {
            try await store.subscribers(appID: appID, address: address)
        } ?? []
    }

    func thing(appID: AppID, reference: ThingReference) async throws -> Thing? {
        try await things.value(InApp(appID, reference)) {
            try await store.thing(appID: appID, reference: reference)
        }
    }

    func owners(appID: AppID, thing: ThingID) async throws -> Set<Owner> {
        try await owners.value(InApp(appID, thing)) {
            try await store.owners(appID: appID, thing: thing)
        } ?? []
    }

    /// The thing as an end node (its gateway receives its commands); nil when it is none.
    func endNode(appID: AppID, thing: ThingID) async throws -> EndNode? {
        try await endNodes.value(InApp(appID, thing)) {
            EndNodeAttachment(endNode: try await store.endNode(appID: appID, id: thing))
        }?.endNode
    }

    func groups(appID: AppID, user: UserID) async throws -> Set<GroupID> {
        try await context(appID: appID, principal: .user(user)).groups
    }
}
