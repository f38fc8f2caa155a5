import Foundation
import HTTPTypes
import MQTTBridge
import ProcessSupport
import TestSupport
import Testing
import TopicGateCore

/// The gateway's own link to a broker given as `mqtts://`, through the real executable: TLS
/// with the broker's CA and a client certificate, and nothing delivered when the broker cannot
/// be trusted.
@Suite("The gateway's TLS link to its broker")
struct BrokerLinkTLSTests {
    @Test(
        "mqtts:// with the broker's CA and a client certificate: pushes are delivered; trusting another CA the gateway never connects and delivers nothing"
    )
    func pushesOverTLS() async throws {
        let folder = TestFolder.url.appendingPathComponent("tg-linktls-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try await TestCertificate(in: folder + "/server")
        let client = try await TestCertificate(in: folder + "/client")
        let stranger = try await TestCertificate(in: folder + "/stranger")
        let broker = try BrokerProcess(
            tls: .init(certfile: server.certificate, keyfile: server.privateKey, cafile: client.certificate),
            requiresClientCertificate: true)
        // Devices use the broker's plain port; the gateway only its TLS one.
        // The gateway's warnings are read: each failed attempt to connect says so.
        func world(trusting authority: String) throws -> PushWorld {
            try PushWorld(
                arguments: ["--mqtt-public-ports", "\(broker.port),0,0,0", "--log-level", "warning"], broker: broker,
                link: [
                    "--broker", "mqtts://localhost:\(broker.tlsPort)", "--mqtt-secret-file", broker.secretFile,
                    "--broker-tls-ca", authority, "--broker-tls-cert", client.certificate, "--broker-tls-key",
                    client.privateKey,
                ])
        }
        let trusting = try world(trusting: server.certificate)
        try await trusting.start()
        #expect(try await eventually { try await trusting.call(.get, "/ready").status == .ok })
        let scene = try await trusting.subscribedMember()
        #expect(scene.endpoint.portTCP == broker.port)
        #expect(scene.endpoint.object["portWS"]?.intValue == 0)
        let device = try await trusting.connectedDevice(scene.endpoint)
        defer { device.shutdown() }
        let received = ReceivedMessages(device)
        try await trusting.push(scene.topic, token: scene.owner.token, message: "over TLS")
        #expect(await received.wait(for: 1).count == 1)
        _ = try await trusting.server.stop(signal: SIGTERM)
        try await broker.stop()

        // The same broker, the gateway trusting another CA: no link, so no delivery. The waits
        // are the gateway's own account: its failed attempts to connect, counted in its log,
        // and its outbox, which still holds the push after two more attempts failed.
        let wary = try world(trusting: stranger.certificate)
        try await wary.start()
        func failedAttempts() -> Int {
            let log = (try? String(contentsOfFile: wary.server.outputPath, encoding: .utf8)) ?? ""
            return log.components(separatedBy: "Cannot connect to the broker yet").count - 1
        }
        #expect(try await eventually { failedAttempts() >= 1 })
        #expect(try await wary.call(.get, "/ready").status == .serviceUnavailable)
        let other = try await wary.subscribedMember()
        let otherDevice = try await wary.connectedDevice(other.endpoint)
        defer { otherDevice.shutdown() }
        let nothing = ReceivedMessages(otherDevice)
        try await wary.send(other.topic, token: other.owner.token, message: "never").expect(.created)
        let attempts = failedAttempts()
        #expect(try await eventually(timeout: .seconds(30)) { failedAttempts() >= attempts + 2 })
        let metrics = try await wary.server.metricsText()
        #expect(PushMetricsTests.sample(metrics, "topicgate_outbox_depth") == 1, "\(metrics)")
        #expect(PushMetricsTests.sample(metrics, "topicgate_pushes_published_total") ?? 0 == 0)
        #expect(nothing.all.isEmpty)
        _ = try await wary.server.stop(signal: SIGTERM)
        try await broker.stop()
    }
}
