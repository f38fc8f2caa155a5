import MQTTBridge
import TestSupport
import Testing

/// `/metrics` of a gateway with a real broker.
@Suite("Push metrics")
struct PushMetricsTests {
    /// The value of the sample line that starts with `prefix`.
    static func sample(_ text: String, _ prefix: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(prefix + " ") }
            .flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    @Test("With a broker: pushes published and acknowledged, the MQTT link up")
    func pushMetrics() async throws {
        let world = try await PushWorld.started()
        let scene = try await world.subscribedMember()
        let device = try await world.connectedDevice(scene.endpoint)
        defer { device.shutdown() }
        let received = ReceivedMessages(device)
        try await world.push(scene.topic, token: scene.owner.token, message: "counted")
        #expect(await received.wait(for: 1).count == 1)
        let text = try await world.server.metricsText()
        #expect(Self.sample(text, "topicgate_mqtt_connected") == 1)
        #expect((Self.sample(text, "topicgate_pushes_published_total") ?? 0) >= 1)
        #expect(
            Self.sample(text, "topicgate_pushes_acknowledged_total")
                == Self.sample(text, "topicgate_pushes_published_total"))
        #expect(Self.sample(text, "topicgate_pushes_failed_total") == 0)
        try await world.stop()
    }
}
