import Foundation
import MQTTBridge
import Synchronization
import TestSupport
import Testing

@testable import TopicGateServer

/// A broker link under a flood of thing states: each state costs the link what the first did.
/// It loads both cores for about 20 s, so `make test` runs it on its own, after the suite.
@Suite("Broker link: a flood of thing states")
struct BrokerLinkStatesTests {
    @Test(
        "100 000 thing states through the link: each reaches the state handler, and fan-outs still settle (a handler that cost more with each message would take hours)",
        .timeLimit(.minutes(5))
    )
    func manyStates() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let names = ["dev-states-0"]
        let devices = try await BrokerLinkFanOutTests.devices(names, on: broker)
        let handled = Atomic<Int>(0)
        let (link, running) = try BrokerLinkFanOutTests.link(to: broker) { _ in handled.add(1, ordering: .relaxed) }
        let publisher = try broker.gatewayClient(clientID: "state-publisher")
        defer {
            running.cancel()
            publisher.shutdown()
            for (device, _) in devices { device.shutdown() }
        }
        #expect(try await eventually(timeout: BrokerLinkFanOutTests.patience) { link.fansOut })
        try await publisher.connect(timeout: .seconds(30))
        let (states, window) = (100_000, 500)
        let payload = Array(#"{"power":true}"#.utf8)
        for start in stride(from: 0, to: states, by: window) {
            // At most one window waits for the link at the broker (which drops what a slow
            // subscriber has queued past max_queued_messages, 1 000).
            #expect(
                try await eventually(timeout: BrokerLinkFanOutTests.patience) {
                    handled.load(ordering: .relaxed) >= start
                },
                "\(handled.load(ordering: .relaxed)) of the first \(start) states handled")
            let batch = try (start..<min(start + window, states)).map { _ in
                try publisher.startPublishing("\(names[0])/state", payload: payload)
            }
            #expect(await publisher.unacknowledged(batch, timeout: BrokerLinkFanOutTests.patience).isEmpty)
            // Fan-outs settle between the states, their barriers' answers taken among them.
            if start % 20_000 == 0 {
                let (acknowledged, routed) = await BrokerLinkFanOutTests.settle(
                    "between \(start)", to: names, through: link)
                #expect(acknowledged && routed, "after \(start) states: routed \(routed)")
            }
        }
        #expect(
            try await eventually(timeout: BrokerLinkFanOutTests.patience) {
                handled.load(ordering: .relaxed) == states
            },
            "\(handled.load(ordering: .relaxed)) of \(states) states handled")
        #expect(await devices[0].1.wait(for: 5).count == 5)
    }
}
