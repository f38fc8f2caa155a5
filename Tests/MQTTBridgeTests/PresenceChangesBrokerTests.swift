import Foundation
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore

/// Presence reports to gateways that asked what the plugin can do: gathered in one message per
/// turn of the broker's loop, unless a gateway session that never asked is connected.
@Suite("Presence changes through the broker's plugin")
struct PresenceChangesBrokerTests {
    /// The reports `received` holds, in order: (username, connected, came gathered).
    static func changes(_ received: ReceivedMessages) -> [(String, Bool, Bool)] {
        received.all.flatMap { message -> [(String, Bool, Bool)] in
            let gathered = message.topic == PresenceReport.changesTopic
            switch PresenceReport(payload: message.payload) {
            case .connected(let name): return [(name, true, gathered)]
            case .disconnected(let name): return [(name, false, gathered)]
            case .changes(let changes): return changes.map { ($0.username, $0.connected, gathered) }
            default: return []
            }
        }
    }

    static func follow(_ gateway: MQTTClient, asking: Bool) async throws {
        try await gateway.connect(timeout: .seconds(5))
        try await gateway.subscribe(PresenceReport.topic)
        try await gateway.subscribe(PresenceReport.changesTopic)
        if asking {
            try await gateway.publish(
                MQTTControlMessage.topic, payload: MQTTControlMessage.presenceAndFeaturesRequest(nonce: "n1"))
        }
    }

    @Test(
        "A gateway that asked gets each change once, in order, gathered; with a gateway that never asked, single reports"
    )
    func gatheredOrSingle() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let gateway = try broker.gatewayClient()
        defer { gateway.shutdown() }
        let received = ReceivedMessages(gateway)
        try await Self.follow(gateway, asking: true)
        try await Task.sleep(for: .milliseconds(200))
        var devices: [MQTTClient] = []
        for n in 0..<20 {
            let device = try broker.deviceClient("dev-p\(n)")
            try await device.connect(timeout: .seconds(5))
            devices.append(device)
        }
        #expect(try await eventually { Self.changes(received).count >= 20 })
        // One at a time, each seen before the next (the broker's order is the one asserted).
        for (seen, device) in devices.prefix(5).enumerated() {
            device.shutdown()
            #expect(try await eventually { Self.changes(received).count >= 21 + seen })
        }
        let expected = (0..<20).map { ("dev-p\($0)", true) } + (0..<5).map { ("dev-p\($0)", false) }
        #expect(try await eventually { Self.changes(received).count >= 25 })
        let seen = Self.changes(received)
        #expect(seen.map(\.0) == expected.map(\.0) && seen.map(\.1) == expected.map(\.1))
        #expect(seen.allSatisfy { $0.2 }, "all gathered on the changes topic")

        // An older gateway, that never asks: every change as a single report, which both read.
        let older = try broker.gatewayClient(clientID: "topicgate-older")
        defer { older.shutdown() }
        let olderReceived = ReceivedMessages(older)
        try await Self.follow(older, asking: false)
        // One at a time, each seen before the next: separate clients' disconnects reach the
        // broker in no set order, and the order asserted is the broker's.
        for (seen, device) in devices.suffix(15).enumerated() {
            device.shutdown()
            #expect(try await eventually { Self.changes(olderReceived).count >= seen + 1 })
        }
        #expect(try await eventually { Self.changes(olderReceived).count >= 15 })
        #expect(Self.changes(olderReceived).map(\.0) == (5..<20).map { "dev-p\($0)" })
        #expect(Self.changes(olderReceived).allSatisfy { !$0.1 && !$0.2 })
        #expect(try await eventually { Self.changes(received).count >= 40 })
        #expect(Self.changes(received).suffix(15).allSatisfy { !$0.1 && !$0.2 })
    }
}
