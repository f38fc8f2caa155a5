import TopicGateCore
import TopicGateStore

/// Loads the facts `AccessPolicy` needs about principals: a user's groups and owned things.
/// Both, and each topic's subscribers with theirs, are kept while no membership, ownership,
/// subscription or principal changed since they were read.
struct AccessContextLoader: Sendable {
    let store: any TopicStore & StatesCaching
    let users: AccessFactCache<InApp<UserID>, AccessContext>
    let subscribers: AccessFactCache<InApp<TopicAddress>, [(subscriber: Subscriber, context: AccessContext)]>

    init(store: any TopicStore & StatesCaching) {
        self.store = store
        users = AccessFactCache(generation: store.accessGeneration)
        subscribers = AccessFactCache(generation: store.accessGeneration, capacity: 10_000)
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
}
