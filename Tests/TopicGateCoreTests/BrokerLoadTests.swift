import Testing
import TopicGateCore

@Suite("Broker load")
struct BrokerLoadTests {
    @Test("New installations go to the broker serving fewest, ties to the first named; unnamed ones are the first's")
    func balance() {
        var load = BrokerLoad(names: ["a", "b", "c"], served: ["a": 2, nil: 1, "b": 1, "gone": 9])
        #expect(load.served == ["a": 3, "b": 1, "c": 0])
        let assigned = (0..<7).compactMap { _ in load.assign() }
        #expect(assigned == ["c", "b", "c", "b", "c", "a", "b"])
        #expect(load.served == ["a": 4, "b": 4, "c": 3])
        var none = BrokerLoad(names: [], served: [nil: 3])
        #expect(none.assign() == nil)
    }
}
