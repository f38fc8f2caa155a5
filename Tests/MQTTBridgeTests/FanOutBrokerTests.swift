import Foundation
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore

/// Fan-outs (`MQTTFanOut`) through a real Mosquitto with TopicGate's plugin: the plugin publishes
/// one payload to many device topics inside the broker, for the gateway's account only.
@Suite("Fan-outs through the broker's plugin")
struct FanOutBrokerTests {
    /// Devices connected and subscribed to their own topics, each with what it receives.
    static func devices(_ names: [String], on broker: BrokerProcess, cleanSession: Bool = true) async throws -> [(
        MQTTClient, ReceivedMessages
    )] {
        var devices: [(MQTTClient, ReceivedMessages)] = []
        for name in names {
            let device = try broker.deviceClient(name, cleanSession: cleanSession)
            let received = ReceivedMessages(device)
            devices.append((device, received))
            try await device.connect(timeout: .seconds(5))
            #expect(try await device.subscribe(name) == .atLeastOnce)
        }
        return devices
    }

    @Test("The gateway's fan-outs reach each named device once and in order, an away device on its return, no one else")
    func delivered() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let named = (0..<20).map { "dev-fan-\($0)" }
        let devices = try await Self.devices(named + ["dev-bystander"], on: broker)
        let away = try broker.deviceClient("dev-away", cleanSession: false)
        try await away.connect(timeout: .seconds(5))
        try await away.subscribe("dev-away")
        away.shutdown()
        let gateway = try broker.gatewayClient()
        defer {
            gateway.shutdown()
            for (device, _) in devices { device.shutdown() }
        }
        try await gateway.connect(timeout: .seconds(5))
        for n in 0..<5 {
            let fanOut = MQTTFanOut(payload: Array("push \(n)".utf8), topics: named + ["dev-away"])
            try await gateway.publish(MQTTFanOut.topic, payload: fanOut.bytes, timeout: .seconds(5))
        }
        for (device, received) in devices.prefix(named.count) {
            let messages = await received.wait(for: 5)
            #expect(messages.map(\.text) == (0..<5).map { "push \($0)" }, "\(device.configuration.clientID)")
            #expect(messages.allSatisfy { $0.topic == device.configuration.clientID })
        }
        // The bystander gets only its own marker: nothing of the fan-outs came before it.
        try await gateway.publish("dev-bystander", payload: Array("marker".utf8))
        #expect(await devices.last!.1.before(marker: "marker") == [])
        let back = try broker.deviceClient("dev-away", cleanSession: false)
        defer { back.shutdown() }
        let queued = ReceivedMessages(back)
        try await back.connect(timeout: .seconds(5))
        #expect(await queued.wait(for: 5).map(\.text) == (0..<5).map { "push \($0)" })
    }

    @Test("A batch of fan-outs brings each device its own payloads, in order; a device's batch reaches nobody")
    func batches() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let devices = try await Self.devices(["dev-b1", "dev-b2", "dev-b3", "dev-forger"], on: broker)
        let gateway = try broker.gatewayClient()
        defer {
            gateway.shutdown()
            for (device, _) in devices { device.shutdown() }
        }
        try await gateway.connect(timeout: .seconds(5))
        // Three sends' fan-outs in one PUBLISH, twice: one to the first two devices, one to the
        // last two, one to all three.
        for round in 0..<2 {
            let batch = MQTTFanOutBatch([
                MQTTFanOut(payload: Array("a\(round)".utf8), topics: ["dev-b1", "dev-b2"]),
                MQTTFanOut(payload: Array("b\(round)".utf8), topics: ["dev-b2", "dev-b3"]),
                MQTTFanOut(payload: Array("c\(round)".utf8), topics: ["dev-b1", "dev-b2", "dev-b3"]),
            ])
            try await gateway.publish(MQTTFanOut.topic, payload: batch.bytes, timeout: .seconds(5))
        }
        let forged = MQTTFanOutBatch([MQTTFanOut(payload: Array("forged".utf8), topics: ["dev-b1", "dev-forger"])])
        try? await devices[3].0.publish(MQTTFanOut.topic, payload: forged.bytes, timeout: .seconds(2))
        for name in ["dev-b1", "dev-b2", "dev-b3", "dev-forger"] {
            try await gateway.publish(name, payload: Array("marker".utf8))
        }
        #expect(await devices[0].1.before(marker: "marker")?.map(\.text) == ["a0", "c0", "a1", "c1"])
        #expect(await devices[1].1.before(marker: "marker")?.map(\.text) == ["a0", "b0", "c0", "a1", "b1", "c1"])
        #expect(await devices[2].1.before(marker: "marker")?.map(\.text) == ["b0", "c0", "b1", "c1"])
        #expect(await devices[3].1.before(marker: "marker") == [])
    }

    @Test("A device's fan-out reaches nobody; a revoked device named by the gateway's fan-out gets nothing")
    func refused() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let devices = try await Self.devices(["dev-forger", "dev-target", "dev-revoked"], on: broker)
        let gateway = try broker.gatewayClient()
        defer {
            gateway.shutdown()
            for (device, _) in devices { device.shutdown() }
        }
        let (forger, target, revoked) = (devices[0], devices[1], devices[2])
        let forged = MQTTFanOut(payload: Array("forged".utf8), topics: ["dev-target", "dev-forger"])
        try? await forger.0.publish(MQTTFanOut.topic, payload: forged.bytes, timeout: .seconds(2))

        try await gateway.connect(timeout: .seconds(5))
        let revoke = MQTTControlMessage(revoking: [.init(username: "dev-revoked", expiresAt: .wallClock + .seconds(60))]
        )
        try await gateway.publish(MQTTControlMessage.topic, payload: revoke.payload)
        let fanOut = MQTTFanOut(payload: Array("only the target".utf8), topics: ["dev-revoked", "dev-target"])
        try await gateway.publish(MQTTFanOut.topic, payload: fanOut.bytes)
        for name in ["dev-forger", "dev-target", "dev-revoked"] {
            try await gateway.publish(name, payload: Array("marker".utf8))
        }
        #expect(await target.1.before(marker: "marker")?.map(\.text) == ["only the target"])
        #expect(await forger.1.before(marker: "marker") == [])
        // Kicked by the revocation before the fan-out came, the revoked device never has its
        // marker either.
        // Its connection is closed, after whatever the broker wrote to it before: nothing can
        // come later (a reconnect with the revoked credentials is refused).
        #expect(try await eventually { !revoked.0.isConnected })
        #expect(revoked.1.all.isEmpty)
    }

    @Test("The plugin answers a features request with the request's nonce, to the gateway's account only")
    func features() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let gateway = try broker.gatewayClient()
        defer { gateway.shutdown() }
        let answers = ReceivedMessages(gateway)
        try await gateway.connect(timeout: .seconds(5))
        try await gateway.subscribe(PresenceReport.topic)
        try await gateway.publish(
            MQTTControlMessage.topic, payload: MQTTControlMessage.presenceAndFeaturesRequest(nonce: "n0nce42"))
        let deadline = ContinuousClock.now + .seconds(5)
        var features: PluginFeatures?
        while features == nil, ContinuousClock.now < deadline {
            features = answers.all.lazy.compactMap { PluginFeatures(payload: $0.payload) }.first
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(features?.nonce == "n0nce42")
        #expect(features?.fanOut == true)
        #expect(features?.fanOutBatches == true)
        // A device can neither ask nor read the answer.
        let device = try broker.deviceClient("dev-curious")
        defer { device.shutdown() }
        try await device.connect(timeout: .seconds(5))
        await #expect(throws: MQTTError.self) { try await device.subscribe(PresenceReport.topic) }
    }
}
