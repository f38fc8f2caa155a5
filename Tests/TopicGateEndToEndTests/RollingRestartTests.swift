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
@Suite("Fleet: rolling restarts behind HAProxy")
struct RollingRestartTests {
    final class Tally: Sendable {
        let accepted = Mutex<Set<String>>([])
        let refused = Mutex<[String]>([])
        let sending = Mutex(true)
    }

    @Test("Gateways, then brokers, restarted one by one with SIGTERM under load: every send answered 201, none lost")
    func rollingRestart() async throws {
        let url = try await TestPostgres.shared.newDatabase()
        let one = try BrokerProcess()
        let secondDirectory = one.directory + "-two"
        try FileManager.default.createDirectory(atPath: secondDirectory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: one.secretFile, toPath: secondDirectory + "/mqtt-secret")
        let two = try BrokerProcess(directory: secondDirectory)
        try await one.start()
        try await two.start()
        let arguments = [
            "--database", url, "--broker",
            "mqtt://127.0.0.1:\(one.port)?name=one,mqtt://127.0.0.1:\(two.port)?name=two",
            "--mqtt-secret-file", one.secretFile, "--outbox-lease", "2", "--drain-time", "1",
        ]
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("rolling-\(UUID().uuidString)").path
        let a = ServerProcess(dataDirectory: base + "-a", arguments: arguments)
        let b = ServerProcess(dataDirectory: base + "-b", arguments: arguments, credentialsOf: a)
        try await a.start()
        try await b.start()
        let balancer = LoadBalancer([a, b])
        try await balancer.start()
        defer { Task { await balancer.stop() } }

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

        let tally = Tally()
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
                            tally.refused.withLock { $0.append("\(reply.status)") }
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
        // Each gateway in turn: SIGTERM, drained and stopped, started again, back in rotation.
        for gateway in [a, b] {
            try await Task.sleep(for: .seconds(1))
            #expect(try await gateway.stop(signal: SIGTERM) == 0)
            try await gateway.start()
            #expect(
                try await eventually(timeout: .seconds(20)) { try await gateway.call(.get, "/ready").status == .ok })
        }
        // Then each broker: stopped cleanly, started again.
        for broker in [one, two] {
            try await Task.sleep(for: .seconds(1))
            try await broker.stop(signal: SIGTERM)
            try await Task.sleep(for: .milliseconds(500))
            try await broker.start()
        }
        try await Task.sleep(for: .seconds(2))
        tally.sending.withLock { $0 = false }
        for sender in senders { await sender.value }
        let sent = tally.accepted.withLock { $0 }
        let refused = tally.refused.withLock { $0 }
        #expect(refused.isEmpty, "requests not answered 201: \(refused.prefix(5)) (\(refused.count))")
        #expect(sent.count > 200, "the load was real: \(sent.count) sends")

        var away: [(MQTTClient, ReceivedMessages)] = []
        for endpoint in endpoints.suffix(2) {
            let device = try balancer.device(endpoint, cleanSession: false)
            let received = ReceivedMessages(device)
            try await device.connect(timeout: .seconds(10))
            try await device.subscribe(endpoint.topic)
            away.append((device, received))
        }
        let deadline = ContinuousClock.now + .seconds(45)
        var lost = 0
        var duplicates = 0
        for (index, (device, received)) in (connected + away).enumerated() {
            var ids: [String] = []
            repeat {
                ids = received.all.compactMap { $0.object["pushMessageID"]?.stringValue }
                if sent.isSubset(of: Set(ids)) { break }
                try await Task.sleep(for: .milliseconds(100))
            } while ContinuousClock.now < deadline
            let missing = sent.subtracting(ids)
            #expect(missing.count == 0, "device \(index) (\(index < 2 ? "connected" : "away")) lost \(missing.count)")
            lost += missing.count
            duplicates += ids.count - Set(ids).count
            device.shutdown()
        }
        print(
            "RollingRestartTests: \(sent.count) sends through HAProxy, 2 gateways and 2 brokers restarted: "
                + "\(refused.count) not 201, \(lost) lost, \(duplicates) duplicates")
        _ = try? await a.stop(signal: SIGTERM)
        _ = try? await b.stop(signal: SIGTERM)
        try? await one.stop()
        try? await two.stop()
    }
}
