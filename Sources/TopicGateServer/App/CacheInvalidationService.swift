import Logging
import ServiceLifecycle
import TopicGateStore

/// On a store shared by several gateways: drops what this gateway's caches hold of every
/// change any gateway commits, as the store's change feed reports it (within milliseconds on
/// a local network): the topics, the apps, and the generations every other cache keeps its
/// facts under (token holders and apps; users, memberships and thing facts; recipients'
/// devices). Changes made through this gateway were dropped before they returned.
///
/// A cache is trusted only while the feed is heard: every gateway sends a heartbeat on the feed
/// each `heartbeat`, and a gateway that hears nothing for `deadline` (its feed connection cut or
/// black-holed: a firewall's idle timeout, a pooler in transaction mode) stops serving from its
/// caches and reads through to the database, until the feed carries something again; it then
/// starts its caches over. So no decision is made on a revoked permission for longer than
/// `deadline`, whatever fails silently.
struct CacheInvalidationService: Service {
    let feed: any StoreChangeFeed
    let topics: TopicCache
    let apps: AppCache
    /// The store's generations (`StoreCaching.sharedGenerations`).
    let generations: StoreGenerations
    let logger: Logger
    var heartbeat: Duration = .seconds(1)
    var deadline: Duration = .seconds(3)

    func run() async throws {
        // Nothing is trusted until the feed is first heard.
        distrustCaches()
        let watch = FeedWatch()
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { [self] in
                    await feed.followChanges(silence: deadline) { change in
                        if watch.heardNow() {
                            // Heard again: what was missed meanwhile is unknown, so start over.
                            trustCaches()
                            logger.notice("The change feed is heard; caches trusted")
                        }
                        apply(change)
                    }
                }
                group.addTask { [feed, heartbeat, logger] in
                    while !Task.isCancelled {
                        do { try await feed.sendHeartbeat() } catch {
                            logger.debug("No heartbeat sent", metadata: ["error": "\(error)"])
                        }
                        try? await Task.sleep(for: heartbeat)
                    }
                }
                group.addTask { [self] in
                    while !Task.isCancelled {
                        try? await Task.sleep(for: deadline / 12)
                        if let silence = watch.silent(beyond: deadline) {
                            distrustCaches()
                            logger.warning(
                                "The change feed is silent; reading through the database until it is back",
                                metadata: ["silence": "\(silence)"])
                        }
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Every cache serves and keeps nothing until `trustCaches`.
    private func distrustCaches() {
        topics.distrust()
        apps.distrust()
        for generation in generations.all { generation.distrust() }
    }

    /// Every cache starts over, trusted.
    private func trustCaches() {
        topics.trust()
        apps.trust()
        for generation in generations.all { generation.trust() }
    }

    private func apply(_ change: StoreChange) {
        switch change {
        case .topic(let app, let address): generations.topics.announce(.topic(app, address))
        case .principalDeleted: generations.topics.announce(.all)
        case .app(let app): apps.forget(app)
        case .access:
            generations.identity.advance()
            generations.relations.advance()
            generations.access.advance()
        case .relations:
            generations.relations.advance()
            generations.access.advance()
        case .listeners: generations.access.advance()
        case .installations: generations.installations.advance()
        case .heartbeat: break
        case .unknown:
            generations.topics.announce(.all)
            apps.forgetAll()
            for generation in generations.all { generation.advance() }
        }
    }
}
