import Foundation
import HTTPTypes
import MQTTBridge
import Synchronization
import TestSupport
import Testing
import TopicGateCore

/// A broker stopped cleanly (SIGTERM: what systemd, Docker and Kubernetes send) while sends
/// pour in: every push answered 201 reaches every device, the connected ones and the ones away
/// with a persistent session. The broker acknowledges a fan-out before its copies are routed
/// into the sessions; the gateway settles it only after the plugin says they are.
@Suite("Pushes through a broker stopped under load")
struct BrokerStopTests {
    @Test("Embedded broker stopped with SIGTERM twice under send load: nothing answered 201 is lost, connected or away")
    func sigtermUnderLoad() async throws {
        let world = try await PushWorld.started(embedded: true)
        let scene = try await world.subscribedMember()
        var endpoints = [scene.endpoint]
        for _ in 0..<5 { endpoints.append(try await world.install(token: scene.member.token)) }
        // Three stay connected (they reconnect by themselves, as the SDKs do); three go away
        // after subscribing and come back once the sends are over.
        var connected: [(MQTTClient, ReceivedMessages)] = []
        for endpoint in endpoints.prefix(3) {
            let device = try await world.connectedDevice(endpoint, cleanSession: false)
            connected.append((device, ReceivedMessages(device)))
        }
        for endpoint in endpoints.suffix(3) {
            let device = try await world.connectedDevice(endpoint, cleanSession: false)
            device.shutdown()
        }

        let tally = SendTally()
        let (topic, token) = (scene.topic, scene.owner.token)
        let senders = (0..<4).map { sender in
            Task { [world] in
                var count = 0
                while tally.sending.withLock({ $0 }) {
                    count += 1
                    let reply = try await world.send(topic, token: token, message: "\(sender)-\(count)")
                    if reply.status == .created, let id = reply.object["pushMessageID"]?.stringValue {
                        tally.accepted.withLock { _ = $0.insert(id) }
                    } else {
                        Issue.record("a send was answered \(reply.status)")
                    }
                    // About 80 sends a second in all: an away device's queue in the broker
                    // holds 1000 (`max_queued_messages`), and re-sends count there too.
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
        }
        // Paced by sends, not by time: each stop comes after 40 more sends were answered, however
        // slow the machine, and sends go on through it.
        for _ in 0..<2 {
            try await tally.waitForMore(40)
            let broker = try await world.embeddedBrokerPID()
            kill(broker, SIGTERM)
            // The gateway starts it again; sends go on meanwhile (into the outbox).
            #expect(try await eventually(timeout: .seconds(30)) { (try? await world.embeddedBrokerPID()) != broker })
        }
        try await tally.waitForMore(40)
        tally.sending.withLock { $0 = false }
        for sender in senders { try await sender.value }
        let sent = tally.accepted.withLock { $0 }

        let count = try await DeliveryCount.check(
            connected: connected, away: Array(endpoints.suffix(3)), through: world, sent: sent)
        print(
            "BrokerStopTests: \(sent.count) sends to 6 devices, 2 SIGTERMs: \(count.lost) lost, \(count.duplicates) "
                + "duplicates")
        try await world.stop()
    }
}
