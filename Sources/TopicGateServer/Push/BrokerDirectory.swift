import Synchronization
import TopicGateCore

/// The brokers devices are spread over: which one serves an installation, and which one a new
/// installation gets. With one broker, installations name none (the first broker serves
/// those, so a second broker can be added later without moving anyone).
final class BrokerDirectory: Sendable {
    let brokers: [BrokerAddress]
    private let load: Mutex<BrokerLoad>

    /// `served`: the store's count of live installations per broker name.
    init(brokers: [BrokerAddress], served: [String?: Int] = [:]) {
        precondition(!brokers.isEmpty, "a directory has at least one broker")
        self.brokers = brokers
        self.load = Mutex(BrokerLoad(names: brokers.map(\.name), served: served))
    }

    /// True when devices are spread over several brokers.
    var spreads: Bool { brokers.count > 1 }

    /// The broker that serves `installation`: the one it names, else the first (it names none,
    /// or one that is no longer configured).
    func broker(serving installation: Installation) -> BrokerAddress {
        configured(installation.broker) ?? brokers[0]
    }

    /// The configured broker named `name`, if any.
    func configured(_ name: String?) -> BrokerAddress? {
        guard let name else { return nil }
        return brokers.first { $0.name == name }
    }

    /// The broker for a new installation: none with a single broker, else the one serving fewest.
    func assign() -> String? {
        guard spreads else { return nil }
        return load.withLock { $0.assign() }
    }
}
