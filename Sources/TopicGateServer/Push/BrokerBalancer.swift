import Synchronization
import TopicGateCore
import TopicGateStore

/// Picks the broker for a new MQTT installation: of several, the one serving fewest live
/// installations.
///
/// Counting them is a scan of every live installation, so where this gateway sees every
/// commit of its store (the embedded SQLite file: no other gateway writes it) the counts are
/// kept here: counted, then one more for each installation assigned here, and counted anew once
/// `recount` has passed (so that revoked installations free their broker's share within it).
/// On a shared store (PostgreSQL, several gateways) they are counted for every new
/// installation, so that every gateway's assignments count at once.
final class BrokerBalancer: Sendable {
    let directory: BrokerDirectory
    let store: any InstallationStore & StatesCaching
    let recount: Duration

    private struct Counted {
        var load: BrokerLoad
        var at: ContinuousClock.Instant
    }

    private let counted = Mutex<Counted?>(nil)

    init(directory: BrokerDirectory, store: any InstallationStore & StatesCaching, recount: Duration = .seconds(1)) {
        self.directory = directory
        self.store = store
        self.recount = recount
    }

    /// The broker for one more installation, counted (none with a single broker).
    func assign() async throws -> String? {
        guard directory.spreads else { return nil }
        if store.caching.isShared {
            return directory.assign(served: try await store.liveInstallationsByBroker())
        }
        let now = ContinuousClock.now
        let kept: String?? = counted.withLock { counted in
            guard var current = counted, now - current.at < recount else { return nil }
            let chosen = current.load.assign()
            counted = current
            return .some(chosen)
        }
        if let kept { return kept }
        let served = try await store.liveInstallationsByBroker()
        return counted.withLock { counted in
            var load = BrokerLoad(names: directory.brokers.map(\.name), served: served)
            let chosen = load.assign()
            counted = Counted(load: load, at: now)
            return chosen
        }
    }
}
