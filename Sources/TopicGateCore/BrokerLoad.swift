/// How many live installations each broker serves, and which broker a new installation goes
/// to: the one serving fewest (ties go to the one named first), so that the brokers fill
/// evenly whatever order devices arrive in.
public struct BrokerLoad: Sendable, Hashable {
    /// The brokers, in their configured order.
    public let names: [String]
    public private(set) var served: [String: Int]

    /// `served` as the store counts it: installations assigned no broker belong to the first
    /// one; those of brokers no longer configured count for none.
    public init(names: [String], served: [String?: Int]) {
        self.names = names
        var counts: [String: Int] = [:]
        for name in names { counts[name] = served[name] ?? 0 }
        if let first = names.first { counts[first, default: 0] += served[nil] ?? 0 }
        self.served = counts
    }

    /// The broker for one more installation, counted.
    public mutating func assign() -> String? {
        guard var chosen = names.first else { return nil }
        for name in names where served[name, default: 0] < served[chosen, default: 0] { chosen = name }
        served[chosen, default: 0] += 1
        return chosen
    }
}
