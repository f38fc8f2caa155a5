import TopicGateCore

/// The brokers devices are spread over: which one serves an installation, and which one a new
/// installation gets. With one broker, installations name none (the first broker serves
/// those, so a second broker can be added later without moving anyone).
struct BrokerDirectory: Sendable {
    let brokers: [BrokerAddress]

    init(brokers: [BrokerAddress]) {
        precondition(!brokers.isEmpty, "a directory has at least one broker")
        self.brokers = brokers
    }

    /// True when devices are spread over several brokers.
    var spreads: Bool { brokers.count > 1 }

    /// The broker that serves `installation`: the one it names, else the first (it names none,
    /// or one that is no longer configured).
    func broker(serving installation: Installation) -> BrokerAddress {
        broker(named: installation.broker)
    }

    /// The broker a device that names `name` is served by: that one, else the first (it names
    /// none, or one that is no longer configured).
    func broker(named name: String?) -> BrokerAddress {
        configured(name) ?? brokers[0]
    }

    /// The configured broker named `name`, if any.
    func configured(_ name: String?) -> BrokerAddress? {
        guard let name else { return nil }
        return brokers.first { $0.name == name }
    }

    /// The broker for a new installation, given how many each serves now (the store's count,
    /// shared by every gateway): the one serving fewest.
    func assign(served: [String?: Int]) -> String? {
        var load = BrokerLoad(names: brokers.map(\.name), served: served)
        return load.assign()
    }
}
