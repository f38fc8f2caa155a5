import ServiceLifecycle
import TopicGateStore

/// On a store shared by several gateways: drops what this gateway's caches hold of every
/// change any gateway commits, as the store's change feed reports it (within milliseconds on
/// a local network). Changes made through this gateway were dropped before they returned.
struct CacheInvalidationService: Service {
    let feed: any StoreChangeFeed
    let topics: TopicCache
    let apps: AppCache

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            await feed.followChanges { change in apply(change) }
        }
    }

    func apply(_ change: StoreChange) {
        switch change {
        case .topic(let app, let address): topics.invalidate(app, address)
        case .principalDeleted: topics.invalidateAll()
        case .app(let app): apps.forget(app)
        case .unknown:
            topics.invalidateAll()
            apps.forgetAll()
        }
    }
}
