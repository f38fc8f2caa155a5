import Foundation
import HTTPTypes
import MQTTBridge
import Synchronization
import TestSupport
import Testing
import TopicGateCore

/// A fleet restarted one process at a time under load, as an operator upgrades it: two gateways
/// on PostgreSQL behind a real HAProxy that checks `/ready`, two brokers. Each gateway is
/// stopped with SIGTERM (it drains: `/ready` answers 503 while it still serves, so HAProxy takes
/// it out first) and started again, then each broker. Every request through HAProxy is answered
/// 201, and every push reaches every device, connected or away with a persistent session.
/// The same with SIGKILL (crashes): a request cut short may fail, but every push answered 201
/// still reaches every device.
@Suite("Fleet: rolling restarts and crashes behind HAProxy")
struct RollingRestartTests {
    @Test("Gateways, then brokers, restarted one by one with SIGTERM under load: every send answered 201, none lost")
    func rollingRestart() async throws {
        try await FleetBrokerTests.withFleet(["--drain-time", "2"]) { fleet in
            try await restartOneByOne(fleet, signal: SIGTERM)
        }
    }

    @Test("Gateways, then brokers, killed one by one with SIGKILL under load: no push answered 201 is lost")
    func crashes() async throws {
        try await FleetBrokerTests.withFleet { fleet in
            try await restartOneByOne(fleet, signal: SIGKILL)
        }
    }

    func restartOneByOne(_ fleet: FleetBrokerTests.Fleet, signal: Int32) async throws {
        let (a, b, one, two) = (fleet.a, fleet.b, fleet.one, fleet.two)
        let balancer = LoadBalancer([a, b])
        try await balancer.start()

        // A member's four devices, two on each broker: on each, one stays connected and one is
        // away with a persistent session until the restarts are over.
        let owner = try await balancer.pseudoUser()
        let member = try await balancer.pseudoUser()
        let topic = try await balancer.groupTopic(owner: owner.token, members: [member.id])
        try await balancer.subscribe(topic, userID: member.id, token: member.token)
        var endpoints: [PushWorld.Endpoint] = []
        for _ in 0..<4 { endpoints.append(try await balancer.install(token: member.token)) }
        var connected: [(MQTTClient, ReceivedMessages)] = []
        for endpoint in endpoints.prefix(2) {
            let device = try await balancer.connectedDevice(endpoint, cleanSession: false)
            connected.append((device, ReceivedMessages(device)))
        }
        for endpoint in endpoints.suffix(2) {
            try await balancer.connectedDevice(endpoint, cleanSession: false).shutdown()
        }

        let tally = SendTally()
        let token = owner.token
        let senders = (0..<4).map { sender in
            Task { [balancer] in
                var count = 0
                while tally.sending.withLock({ $0 }) {
                    count += 1
                    do {
                        let reply = try await balancer.send(topic, token: token, message: "\(sender)-\(count)")
                        if reply.status == .created, let id = reply.object["pushMessageID"]?.stringValue {
                            tally.accepted.withLock { _ = $0.insert(id) }
                        } else {
                            tally.refused.withLock {
                                $0.append("\(reply.status): \(String(decoding: reply.body.prefix(200), as: UTF8.self))")
                            }
                        }
                    } catch {
                        tally.refused.withLock { $0.append("\(error)") }
                    }
                    // About 40 sends a second: an away device's queue in the broker holds 1000
                    // (`max_queued_messages`), re-sends included.
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
        }
        // Each gateway in turn: SIGTERM, drained and stopped (or SIGKILL), started again, back in
        // rotation. Paced by sends: each restart after 30 more were answered, however slow the
        // machine.
        for gateway in [a, b] {
            try await tally.waitForMore(30)
            let status = try await gateway.stop(signal: signal)
            if signal == SIGTERM { #expect(status == 0) }
            try await gateway.start()
            #expect(
                try await eventually(timeout: .seconds(20)) { try await gateway.call(.get, "/ready").status == .ok })
        }
        // Then each broker: stopped cleanly (or killed), started again.
        for broker in [one, two] {
            try await tally.waitForMore(30)
            try await broker.stop(signal: signal)
            try await Task.sleep(for: .milliseconds(500))
            try await broker.start()
        }
        try await tally.waitForMore(30)
        tally.sending.withLock { $0 = false }
        for sender in senders { await sender.value }
        let sent = tally.accepted.withLock { $0 }
        let refused = tally.refused.withLock { $0 }
        // A killed gateway may take a request with it; a stopped one drains first.
        if signal == SIGTERM {
            #expect(refused.isEmpty, "requests not answered 201: \(refused.prefix(5)) (\(refused.count))")
        }

        let count = try await DeliveryCount.check(
            connected: connected, away: Array(endpoints.suffix(2)), through: balancer, sent: sent)
        print(
            "RollingRestartTests: \(sent.count) sends through HAProxy, 2 gateways and 2 brokers "
                + "\(signal == SIGKILL ? "killed" : "restarted"): "
                + "\(refused.count) not 201, \(count.lost) lost, \(count.duplicates) duplicates")
        await balancer.stop()
    }
}
