import Foundation
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore

/// The plugin's saves on request, on a real Mosquitto: a barrier is answered `{"saved":…}` only
/// once the broker wrote its persistence file, so a push queued for an away device before it
/// outlives a SIGKILL of the broker; a broker that does not save gets its barriers answered
/// `{"routed":…}` after a few seconds, never left unanswered.
@Suite("Broker saves on request")
struct BrokerSaveTests {
    /// The gateway's account, reading the presence topic, where the plugin answers.
    static func gateway(on broker: BrokerProcess) async throws -> (MQTTClient, ReceivedMessages) {
        let gateway = try broker.gatewayClient()
        let received = ReceivedMessages(gateway)
        try await gateway.connect(timeout: .seconds(5))
        try await gateway.subscribe(PresenceReport.topic)
        return (gateway, received)
    }

    /// Sends barrier `id` and waits for its answer.
    static func barrier(_ id: String, through gateway: MQTTClient, _ received: ReceivedMessages) async throws
        -> RoutingReceipt?
    {
        try await gateway.publish(MQTTControlMessage.topic, payload: MQTTControlMessage.barrier(id: id))
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if let receipt = received.all.lazy.compactMap({ RoutingReceipt(payload: $0.payload) }).first(where: {
                $0.id == id
            }) {
                return receipt
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    static func features(through gateway: MQTTClient, _ received: ReceivedMessages) async throws -> PluginFeatures? {
        try await gateway.publish(
            MQTTControlMessage.topic, payload: MQTTControlMessage.presenceAndFeaturesRequest(nonce: "n1"))
        #expect(try await eventually { received.all.contains { PluginFeatures(payload: $0.payload) != nil } })
        return received.all.lazy.compactMap { PluginFeatures(payload: $0.payload) }.first
    }

    @Test("A push queued for an away device, saved as its barrier says, outlives a SIGKILL of the broker")
    func savedOutlivesCrash() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        // Subscribed with a persistent session, then away.
        let away = try broker.deviceClient("dev-save-away", cleanSession: false)
        try await away.connect(timeout: .seconds(5))
        try await away.subscribe("dev-save-away")
        away.shutdown()

        let (gateway, received) = try await Self.gateway(on: broker)
        #expect(try await Self.features(through: gateway, received)?.saved == true)
        let file = broker.directory + "/mosquitto.db"
        for index in 0..<3 {
            try await gateway.publish("dev-save-away", payload: Array("push \(index)".utf8))
            let before = try? FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date
            #expect(
                try await Self.barrier("b\(index)", through: gateway, received)
                    == RoutingReceipt(id: "b\(index)", saved: true))
            let after = try? FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date
            #expect(after != nil && after != before, "the persistence file was written for barrier \(index)")
        }
        gateway.shutdown()
        // No autosave came (30 s): only the saves on request hold the pushes.
        try await broker.stop(signal: SIGKILL)
        try await broker.start()

        let back = try broker.deviceClient("dev-save-away", cleanSession: false)
        let got = ReceivedMessages(back)
        try await back.connect(timeout: .seconds(5))
        let messages = await got.wait(for: 3)
        #expect(Set(messages.map { String(decoding: $0.payload, as: UTF8.self) }) == ["push 0", "push 1", "push 2"])
        back.shutdown()
        try await broker.stop()
    }

    @Test(
        "Pushes only to devices online with clean sessions need no save: the barrier is answered as routed"
    )
    func cleanSessionsNeedNoSave() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let device = try broker.deviceClient("dev-save-clean", cleanSession: true)
        let got = ReceivedMessages(device)
        try await device.connect(timeout: .seconds(5))
        try await device.subscribe("dev-save-clean")
        let (gateway, received) = try await Self.gateway(on: broker)
        try await gateway.publish("dev-save-clean", payload: Array("to a clean session".utf8))
        #expect(
            try await Self.barrier("clean", through: gateway, received) == RoutingReceipt(id: "clean", saved: false))
        #expect(await got.wait(for: 1).count == 1)
        // The same device away: a push to it may be kept, so the next barrier waits for a save.
        device.shutdown()
        #expect(try await eventually { !broker.log.isEmpty && broker.log.contains("dev-save-clean disconnected") })
        try await gateway.publish("dev-save-clean", payload: Array("while away".utf8))
        #expect(
            try await Self.barrier("away", through: gateway, received) == RoutingReceipt(id: "away", saved: true))
        gateway.shutdown()
        try await broker.stop()
    }

    @Test("A persistent session's subscription is saved soon after it is made: a SIGKILL then does not take it")
    func subscriptionOutlivesCrash() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let file = broker.directory + "/mosquitto.db"
        let device = try broker.deviceClient("dev-save-sub", cleanSession: false)
        try await device.connect(timeout: .seconds(5))
        try await device.subscribe("dev-save-sub")
        device.shutdown()
        // Saved without any push or barrier (the autosave is 30 s away).
        #expect(try await eventually(timeout: .seconds(5)) { FileManager.default.fileExists(atPath: file) })
        try await broker.stop(signal: SIGKILL)
        try await broker.start()

        // Sent while the device is away, after the crash: queued in the restored session.
        let (gateway, _) = try await Self.gateway(on: broker)
        try await gateway.publish("dev-save-sub", payload: Array("after the crash".utf8))
        gateway.shutdown()
        let back = try broker.deviceClient("dev-save-sub", cleanSession: false)
        let got = ReceivedMessages(back)
        try await back.connect(timeout: .seconds(5))
        #expect(await got.wait(for: 1).map { String(decoding: $0.payload, as: UTF8.self) } == ["after the crash"])
        back.shutdown()
        try await broker.stop()
    }

    @Test(
        "A broker that does not save: barriers are answered as routed after the plugin's patience, with an error logged"
    )
    func brokerThatDoesNotSave() async throws {
        // The plugin is told a file, but the broker keeps nothing (a later setting wins).
        let broker = try BrokerProcess(appendedConfig: "\npersistence false\n")
        try await broker.start()
        let (gateway, received) = try await Self.gateway(on: broker)
        // To a device that is not online: it may have a session that keeps it, so a save is due.
        try await gateway.publish("dev-save-nobody", payload: Array("kept?".utf8))
        let started = ContinuousClock.now
        #expect(
            try await Self.barrier("lonely", through: gateway, received) == RoutingReceipt(id: "lonely", saved: false))
        // Answered after the plugin's patience (5 s), not left waiting for the gateway's timeout.
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(ContinuousClock.now - started >= .seconds(4))
        #expect(broker.log.contains("did not change"))
        // For the next minute, barriers are answered at once, without asking again.
        try await gateway.publish("dev-save-nobody", payload: Array("kept?".utf8))
        let again = ContinuousClock.now
        #expect(try await Self.barrier("next", through: gateway, received) == RoutingReceipt(id: "next", saved: false))
        #expect(ContinuousClock.now - again < .seconds(2))
        gateway.shutdown()
        try await broker.stop()
    }
}
