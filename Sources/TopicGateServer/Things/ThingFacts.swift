import TopicGateCore
import TopicGateStore

/// What a command, its results and a thing's state need before they are written: the thing a
/// path names, its owners, and the caller's groups. Kept in memory while the store's access
/// generation stands (any update or deletion of a thing, a change of its owners or of a
/// membership moves it on before its request returns); read from the store on every request
/// when the store has none.
struct ThingFacts: Sendable {
    let store: any ThingStore & StatesCaching
    let things: AccessFactCache<InApp<ThingReference>, Thing>
    let owners: AccessFactCache<InApp<ThingID>, Set<Owner>>
    /// Users' groups (shared with the topics' decisions).
    let contexts: AccessContextLoader

    init(store: any ThingStore & StatesCaching, contexts: AccessContextLoader, capacity: Int = 20_000) {
        self.store = store
        self.contexts = contexts
        things = AccessFactCache(generation: store.accessGeneration, capacity: capacity)
        owners = AccessFactCache(generation: store.accessGeneration, capacity: capacity)
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

    func groups(appID: AppID, user: UserID) async throws -> Set<GroupID> {
        try await contexts.context(appID: appID, principal: .user(user)).groups
    }
}
