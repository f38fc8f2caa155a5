import Foundation
import Logging
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore
import TopicGateStore

@testable import TopicGateServer

/// The gateway's own broker password is short-lived and signed anew for every CONNECT, so a
/// link that reconnects after its first password expired still gets in.
@Suite("Broker link: the gateway's password")
struct GatewayPasswordTests {
    @Test("With a 2 s password lifetime, the link reconnects to a restarted broker after its first password expired")
    func resignedOnReconnect() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let path = TestFolder.url.appendingPathComponent(
            "gwpass-\(UUID().uuidString)/db.sqlite"
        )
        .path
        try MigratedSQLite.place(at: path)
        var configuration = PushConfiguration(
            broker: .external(host: "127.0.0.1", port: broker.port), secretFile: broker.secretFile,
            advertisedHost: "127.0.0.1")
        configuration.gatewayPasswordLifetime = .seconds(2)
        let link = try BrokerLink(
            address: BrokerAddress(
                name: "", host: "127.0.0.1", port: broker.port, publicHost: "127.0.0.1",
                publicPorts: MQTTPorts(tcp: broker.port, ssl: 0, ws: 0, wss: 0)),
            configuration: configuration, signer: broker.signer, store: try SQLiteStore(path: path), time: .system,
            logger: Logger(label: "test"), onConnected: {})
        let running = Task { try await link.run() }
        defer { running.cancel() }
        // Ready once connected and the plugin said what it does (a loaded machine takes a while).
        #expect(try await eventually(timeout: .seconds(30)) { link.isReady })

        // The password of that first CONNECT has expired (the plugin checks expiry at CONNECT,
        // to the second): a copy of it is refused now.
        let first = broker.signer.gatewayPassword(
            username: "topicgate", issuedAt: UnixSeconds(Int64(Date().timeIntervalSince1970)),
            expiresAt: UnixSeconds(Int64(Date().timeIntervalSince1970) + 2))
        try await Task.sleep(for: .seconds(4))
        let replay = try MQTTClient(
            configuration: MQTTClientConfiguration(
                host: "127.0.0.1", port: broker.port, clientID: "topicgate-replay", username: "topicgate",
                password: first))
        await #expect(throws: MQTTError.self) { try await replay.connect(timeout: .seconds(5)) }
        replay.shutdown()

        // The broker restarts: the link connects again with a password signed for this CONNECT.
        try await broker.stop(signal: SIGTERM)
        #expect(try await eventually { !link.isReady })
        try await broker.start()
        #expect(try await eventually(timeout: .seconds(30)) { link.isReady })
        let devices = try await BrokerLinkFanOutTests.devices(["dev-gwpass"], on: broker)
        defer { for (device, _) in devices { device.shutdown() } }
        #expect(await link.start(BrokerLinkFanOutTests.publications("after", to: ["dev-gwpass"])).failures().isEmpty)
        #expect(await devices[0].1.wait(for: 1).map(\.text) == ["after"])
        try await broker.stop()
    }
}
