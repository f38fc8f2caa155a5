import TopicGateCore
import TopicGateStore

/// Where the pushes to a principal go: its live `MQTT` installations' endpoints, kept per
/// principal while no installation was registered, revoked, deleted or moved to another broker
/// since they were read (`Store.installationGeneration`): a revocation that returned is never
/// missed, and a device registered a moment ago gets the next push. A principal with none is
/// kept too. On a store shared by several gateways, another gateway's change reaches the
/// generation through the change feed; while the feed is not heard each push reads them.
struct LiveEndpoints: Sendable {
    typealias Key = InApp<Principal>

    let store: any InstallationStore & StatesCaching
    let kept: AccessFactCache<Key, [PushEndpoint]>

    /// `capacity`: principals kept (each with about a hundred bytes per device); a push to more
    /// principals at once reads theirs without keeping them.
    let capacity: Int

    init(store: any InstallationStore & StatesCaching, capacity: Int = 20_000) {
        self.capacity = capacity
        self.store = store
        kept = AccessFactCache(generation: store.installationGeneration, capacity: capacity)
    }

    /// The endpoints of `principals`, read and not kept, in no particular order.
    func uncached(appID: AppID, principals: [Principal]) async throws -> [PushEndpoint] {
        try await store.pushEndpoints(appID: appID, principals: principals)
    }

    /// Each principal's endpoints (none for a principal without any), by principal: one lookup
    /// per principal, however many messages of a batch name it. `keeping: false` reads them
    /// without keeping them (a part of a push to more principals than are kept, which would
    /// only push out those of the pushes that come again).
    func byPrincipal(appID: AppID, principals: some Sequence<Principal>, keeping: Bool = true) async throws
        -> [Key: [PushEndpoint]]
    {
        let keys = Array(Set(principals.lazy.map { Key(appID, $0) }))
        let read: @Sendable ([Key]) async throws -> [Key: [PushEndpoint]] = { [store] missing in
            var read = Dictionary(uniqueKeysWithValues: missing.lazy.map { ($0, [PushEndpoint]()) })
            for endpoint in try await store.pushEndpoints(appID: appID, principals: missing.map(\.name)) {
                read[Key(appID, endpoint.principal)]?.append(endpoint)
            }
            return read
        }
        return keeping ? try await kept.values(keys, load: read) : try await read(keys)
    }
}
