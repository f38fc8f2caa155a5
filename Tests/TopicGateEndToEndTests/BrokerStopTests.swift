import Foundation
import HTTPTypes
import MQTTBridge
import Synchronization
import TestSupport
import Testing
import TopicGateCore

/// A broker stopped cleanly (SIGTERM: what systemd, Docker and Kubernetes send) or killed
/// (SIGKILL: a crash) while sends pour in: every push answered 201 reaches every device, the
/// connected ones and the ones away with a persistent session. The broker acknowledges a
/// fan-out before its copies are routed into the sessions, and keeps them in memory until it
/// writes its persistence file; the gateway settles a push only after the plugin says the broker
/// wrote it (`{"saved":…}`), and sends again what a restarted broker may have lost.
@Suite("Pushes through a broker stopped or killed under load")
struct BrokerStopTests {
    @Test(
        "Embedded broker stopped (SIGTERM) or killed (SIGKILL) twice under send load: nothing answered 201 is lost, connected or away",
        arguments: [SIGTERM, SIGKILL])
    func stoppedUnderLoad(signal: Int32) async throws {
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
            kill(broker, signal)
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
            "BrokerStopTests: \(sent.count) sends to 6 devices, 2 \(signal == SIGKILL ? "SIGKILLs" : "SIGTERMs"): "
                + "\(count.lost) lost, \(count.duplicates) duplicates")
        try await world.stop()
    }

    @Test(
        "An away device's 50 pushes, settled, outlive a crash of the embedded broker: the device comes back to all of them"
    )
    func awayDeviceThroughCrash() async throws {
        let world = try await PushWorld.started(embedded: true)
        let scene = try await world.subscribedMember()
        // Subscribed with a persistent session, then away.
        try await world.connectedDevice(scene.endpoint, cleanSession: false).shutdown()
        var sent: Set<String> = []
        for index in 0..<50 {
            sent.insert(try await world.push(scene.topic, token: scene.owner.token, message: "\(index)"))
        }
        // Settled: the outbox is empty, so nothing would be sent again. Before, the broker had
        // them in memory only until its next autosave, 30 s away: a crash lost all 50.
        let admin = try await world.adminToken()
        #expect(
            try await eventually(timeout: .seconds(20)) {
                try await world.call(.get, "\(world.app)/overview", token: admin).object["outboxDepth"] == 0
            })
        let broker = try await world.embeddedBrokerPID()
        kill(broker, SIGKILL)
        #expect(try await eventually(timeout: .seconds(30)) { (try? await world.embeddedBrokerPID()) != broker })

        let count = try await DeliveryCount.check(connected: [], away: [scene.endpoint], through: world, sent: sent)
        #expect(count.duplicates == 0)
        try await world.stop()
    }
}
