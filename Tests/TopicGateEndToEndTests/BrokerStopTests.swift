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

        let tally = Tally()
        let (topic, token) = (scene.topic, scene.owner.token)
        let senders = (0..<4).map { sender in
            Task { [world] in
                var count = 0
                while tally.sending.withLock({ $0 }) {
                    count += 1
                    let reply = try await world.send(topic, token: token, message: "\(sender)-\(count)")
                    if reply.status == .created, let id = reply.object["pushMessageID"]?.stringValue {
                        tally.accepted.withLock { _ = $0.insert(id) }
                        tally.when.withLock { $0[id] = ContinuousClock.now }
                    } else {
                        Issue.record("a send was answered \(reply.status)")
                    }
                    // About 80 sends a second in all: an away device's queue in the broker
                    // holds 1000 (`max_queued_messages`), and re-sends count there too.
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
        }
        let begin = ContinuousClock.now
        for _ in 0..<2 {
            try await Task.sleep(for: .seconds(2))
            let broker = try await brokerPID(world.directory)
            kill(broker, SIGTERM)
            print("SIGTERM at", ContinuousClock.now - begin)
            // The gateway starts it again; sends go on meanwhile (into the outbox).
            #expect(try await eventually(timeout: .seconds(30)) { (try? await brokerPID(world.directory)) != broker })
        }
        try await Task.sleep(for: .seconds(2))
        tally.sending.withLock { $0 = false }
        for sender in senders { try await sender.value }
        let sent = tally.accepted.withLock { $0 }
        #expect(sent.count > 300, "the load was real: \(sent.count) sends")

        var away: [(MQTTClient, ReceivedMessages)] = []
        for endpoint in endpoints.suffix(3) {
            let device = try world.device(endpoint, cleanSession: false)
            let received = ReceivedMessages(device)
            try await device.connect(timeout: .seconds(10))
            try await device.subscribe(endpoint.topic)
            away.append((device, received))
        }
        var lost = 0
        var duplicates = 0
        // One deadline for all: what is missing then is lost.
        let deadline = ContinuousClock.now + .seconds(45)
        for (index, (device, received)) in (connected + away).enumerated() {
            var ids: [String] = []
            repeat {
                ids = received.all.compactMap { $0.object["pushMessageID"]?.stringValue }
                if sent.isSubset(of: Set(ids)) { break }
                try await Task.sleep(for: .milliseconds(100))
            } while ContinuousClock.now < deadline
            let missing = sent.subtracting(ids)
            #expect(missing.count == 0, "device \(index) (\(index < 3 ? "connected" : "away")) lost \(missing.count)")
            lost += missing.count
            let times = tally.when.withLock { when in missing.compactMap { when[$0] }.map { $0 - begin }.sorted() }
            if !times.isEmpty { print("device \(index) missing sent at", times.first!, "...", times.last!) }
            duplicates += ids.count - Set(ids).count
            device.shutdown()
        }
        print("BrokerStopTests: \(sent.count) sends to 6 devices, 2 SIGTERMs: \(lost) lost, \(duplicates) duplicates")
        try await world.stop()
    }

    /// What the senders share: the pushMessageIDs answered 201, and whether to go on.
    final class Tally: Sendable {
        let accepted = Mutex<Set<String>>([])
        let sending = Mutex(true)
        let when = Mutex<[String: ContinuousClock.Instant]>([:])
    }

    func brokerPID(_ directory: String) async throws -> pid_t {
        for _ in 0..<200 {
            if let text = try? String(contentsOfFile: directory + "/broker/state/mosquitto.pid", encoding: .utf8),
                let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), kill(pid, 0) == 0
            {
                return pid
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("no running broker's pid file in \(directory)/broker/state")
    }
}
