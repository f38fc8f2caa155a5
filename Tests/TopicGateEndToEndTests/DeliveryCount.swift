import Foundation
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore

/// What devices got of the pushes answered 201, after a fault: every device must have each of
/// them (lost: those it never got within one deadline for all); duplicates are counted, not
/// refused (delivery is at least once).
struct DeliveryCount {
    var lost = 0
    var duplicates = 0

    /// The devices at `away` come back through `api` (`returningDevice`), then `check` counts
    /// what they and the `connected` ones got of `sent`.
    static func check(
        connected: [(MQTTClient, ReceivedMessages)], away: [PushWorld.Endpoint], through api: some KiiAPI,
        sent: Set<String>
    ) async throws -> DeliveryCount {
        var devices = connected.enumerated().map { index, device in
            (name: "connected device \(index)", client: device.0, received: device.1)
        }
        for (index, endpoint) in away.enumerated() {
            let (client, received) = try await api.returningDevice(endpoint)
            devices.append((name: "away device \(index)", client: client, received: received))
        }
        return try await check(devices, sent: sent)
    }

    /// Waits up to `timeout` in all for each device in `devices` (named for the message) to
    /// have every ID in `sent`; records an issue for each device that lacks some, and shuts the
    /// devices down.
    static func check(
        _ devices: [(name: String, client: MQTTClient, received: ReceivedMessages)], sent: Set<String>,
        timeout: Duration = .seconds(45)
    ) async throws -> DeliveryCount {
        let deadline = ContinuousClock.now + timeout
        var count = DeliveryCount()
        for device in devices {
            var ids: [String] = []
            repeat {
                ids = device.received.all.compactMap { $0.object["pushMessageID"]?.stringValue }
                if sent.isSubset(of: Set(ids)) { break }
                try await Task.sleep(for: .milliseconds(100))
            } while ContinuousClock.now < deadline
            let missing = sent.subtracting(ids).count
            #expect(missing == 0, "\(device.name) lost \(missing) of \(sent.count)")
            count.lost += missing
            count.duplicates += ids.count - Set(ids).count
            device.client.shutdown()
        }
        return count
    }
}

extension KiiAPI {
    /// `endpoint`'s device back from being away with its persistent session: it connects and
    /// subscribes again, as Kii's SDKs do on every connect, and what it gets is recorded from
    /// the start.
    func returningDevice(_ endpoint: PushWorld.Endpoint) async throws -> (MQTTClient, ReceivedMessages) {
        let device = try self.device(endpoint, cleanSession: false)
        let received = ReceivedMessages(device)
        try await device.connect(timeout: .seconds(10))
        try await device.subscribe(endpoint.topic)
        return (device, received)
    }
}

extension PushWorld {
    /// The pid of the embedded broker running now, from its pid file.
    func embeddedBrokerPID() async throws -> pid_t {
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
