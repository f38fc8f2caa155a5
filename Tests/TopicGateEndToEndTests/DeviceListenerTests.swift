import Foundation
import MQTTBridge
import ProcessSupport
import TestSupport
import Testing
import TopicGateCore
import TopicGateServer

/// MQTT over TLS (the embedded broker's TLS listener) and over WebSockets (the gateway's relay),
/// through the real executable and its embedded Mosquitto: devices there receive their pushes,
/// the plugin's rules hold there too, and an endpoint names only ports where something listens.
@Suite("MQTT over TLS and WebSockets")
struct DeviceListenerTests {
    /// A gateway with its embedded broker and TLS listeners, and a member subscribed to a topic.
    func world() async throws -> (PushWorld, TestCertificate, tls: Int, wss: Int) {
        let directory = TestFolder.url.appendingPathComponent("tg-cert-\(UUID().uuidString)")
            .path
        let certificate = try await TestCertificate(in: directory)
        let (tls, wss) = (FreePort.next(), FreePort.next())
        let world = try await PushWorld.started(
            embedded: true,
            arguments: [
                "--mqtt-tls-cert", certificate.certificate, "--mqtt-tls-key", certificate.privateKey,
                "--mqtt-tls-port", "\(tls)", "--mqtt-wss-port", "\(wss)",
            ])
        return (world, certificate, tls, wss)
    }

    /// A device over TLS, configured from its endpoint as Kii's SDKs do (TLS to `portSSL`).
    func tlsDevice(_ endpoint: PushWorld.Endpoint, port: Int, certificate: TestCertificate) throws -> MQTTClient {
        var configuration = MQTTClientConfiguration(
            host: endpoint.host, port: port, clientID: endpoint.topic, username: endpoint.username,
            password: endpoint.password, reconnectDelay: (1, 1))
        configuration.tlsCAFile = certificate.certificate
        return try MQTTClient(configuration: configuration)
    }

    /// A device over WebSockets: upgrade, CONNECT, CONNACK; returns the connection.
    func webSocketDevice(_ endpoint: PushWorld.Endpoint, port: Int, password: String? = nil) async throws
        -> (WebSocketConnection, returnCode: UInt8)
    {
        let socket = try await WebSocketConnection(port: port)
        #expect(socket.subprotocol == "mqtt")
        try socket.send(
            MQTTPackets.connect(
                clientID: endpoint.topic, username: endpoint.username, password: password ?? endpoint.password))
        let connack = try await socket.nextPacket()
        #expect(connack.header == 0x20)
        return (socket, connack.body.last ?? 0xFF)
    }

    @Test("Devices over TLS and over WebSockets receive their pushes; the endpoint names both listeners")
    func pushesArrive() async throws {
        let (world, certificate, tls, wss) = try await world()
        let scene = try await world.subscribedMember()
        let endpoint = scene.endpoint
        #expect(endpoint.object["portSSL"]?.intValue == Int64(tls))
        #expect(endpoint.object["portWS"]?.intValue == Int64(world.server.webSocketPort))
        #expect(endpoint.object["portWSS"]?.intValue == Int64(wss))
        #expect(endpoint.portTCP == world.server.mqttPort)
        for port in [endpoint.portTCP, tls, world.server.webSocketPort, wss] {
            #expect(TCPProbe.accepts(port: port), "nothing listens on advertised port \(port)")
        }

        // Over TLS.
        let device = try tlsDevice(endpoint, port: tls, certificate: certificate)
        let received = ReceivedMessages(device)
        try await device.connect(timeout: .seconds(10))
        try await device.subscribe(endpoint.topic)
        try await world.push(scene.topic, token: scene.owner.token, message: "over-tls")
        let messages = await received.wait(for: 1)
        #expect(messages.first?.object["msg"] == .string("over-tls"))
        device.disconnect()

        // Over WebSockets (a second installation of the same member, as a browser would make).
        let browser = try await world.install(token: scene.member.token)
        let (socket, code) = try await webSocketDevice(browser, port: world.server.webSocketPort)
        #expect(code == 0)
        try socket.send(MQTTPackets.subscribe(browser.topic))
        let suback = try await socket.nextPacket()
        #expect(suback.header == 0x90 && suback.body.last == 0)
        try await world.push(scene.topic, token: scene.owner.token, message: "over-websockets")
        let publish = try await socket.nextPacket()
        let publication = try #require(MQTTPackets.publication(publish.header, publish.body))
        #expect(publication.topic == browser.topic)
        #expect((try? JSONReader.object(publication.payload))?["msg"] == .string("over-websockets"))

        // Secure WebSockets: the TLS handshake verifies against the test's certificate, and the
        // upgrade picks the mqtt subprotocol; a masked close frame then ends the connection.
        let upgradeRequest =
            "GET /mqtt HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: "
            + "mqtt\r\n\r\n"
        let upgrade = try await TLSClient.exchange(
            Array(upgradeRequest.utf8) + [0x88, 0x80, 0x01, 0x02, 0x03, 0x04], port: wss, certificate: certificate)
        #expect(upgrade.hasPrefix("HTTP/1.1 101"))
        #expect(upgrade.lowercased().contains("sec-websocket-protocol: mqtt"))
        try await world.stop()
    }

    @Test("Over TLS and WebSockets too: wildcards and other devices' topics are refused, bad passwords too")
    func rulesHold() async throws {
        let (world, certificate, tls, _) = try await world()
        let scene = try await world.subscribedMember()
        let other = try await world.install(token: try await world.pseudoUser().token)

        let device = try tlsDevice(scene.endpoint, port: tls, certificate: certificate)
        let received = ReceivedMessages(device)
        try await device.connect(timeout: .seconds(10))
        for filter in ["#", "+", other.topic, "$SYS/#", "\(scene.endpoint.topic)/#"] {
            let error = await #expect(throws: MQTTError.self) { try await device.subscribe(filter) }
            #expect(error?.code == .subscriptionRefused, "TLS \(filter)")
        }

        let browser = try await world.install(token: scene.member.token)
        let (socket, code) = try await webSocketDevice(browser, port: world.server.webSocketPort)
        #expect(code == 0)
        for (index, filter) in ["#", "+", other.topic, "$SYS/#"].enumerated() {
            try socket.send(MQTTPackets.subscribe(filter, packetID: UInt16(index + 1)))
            let suback = try await socket.nextPacket()
            #expect(suback.header == 0x90 && suback.body.last == 0x80, "WebSockets \(filter)")
        }
        // The member's topic receives; nothing reaches either device meanwhile.
        try await world.push(scene.topic, token: scene.owner.token, message: "for-the-tls-device-only")
        // Subscribed to nothing yet: the push is not for it. The broker has it once it
        // acknowledged the gateway's publications, one per installation of the member (the
        // gateway may still be connecting to its embedded broker when the push is accepted).
        // Once the device reads its own topic, the marker arrives with nothing before it.
        #expect(
            try await eventually {
                PushMetricsTests.sample(try await world.server.metricsText(), "topicgate_pushes_acknowledged_total")
                    == 2
            })
        try await device.subscribe(scene.endpoint.topic)
        #expect(await received.before(marker: try await world.marker(to: scene.member)) == [])

        // Another device's password, or a made-up one, does not open a WebSocket session.
        let (_, stolen) = try await webSocketDevice(browser, port: world.server.webSocketPort, password: other.password)
        #expect(stolen != 0)
        let (_, forged) = try await webSocketDevice(
            browser, port: world.server.webSocketPort, password: "k1.9999999999.AAAA")
        #expect(forged != 0)
        device.disconnect()
        try await world.stop()
    }

    @Test("Without TLS files and with --mqtt-ws-port 0, the endpoint names no TLS or WebSockets port")
    func noPhantomPorts() async throws {
        let world = try await PushWorld.started(embedded: true, arguments: ["--mqtt-ws-port", "0"])
        let endpoint = try await world.install(token: try await world.pseudoUser().token)
        #expect(endpoint.portTCP == world.server.mqttPort)
        #expect(TCPProbe.accepts(port: endpoint.portTCP))
        for key in ["portSSL", "portWS", "portWSS"] { #expect(endpoint.object[key]?.intValue == 0, "\(key)") }
        #expect(!TCPProbe.accepts(port: world.server.webSocketPort))
        try await world.stop()
    }

    @Test("--mqtt-host 0.0.0.0 binds the broker and the relay on every interface and tells devices this machine's name")
    func everyInterface() async throws {
        let world = try await PushWorld.started(embedded: true, arguments: ["--mqtt-host", "0.0.0.0"])
        let config = try String(contentsOfFile: world.directory + "/broker/mosquitto.conf", encoding: .utf8)
        #expect(config.contains("listener \(world.server.mqttPort) 0.0.0.0"))
        let endpoint = try await world.install(token: try await world.pseudoUser().token)
        #expect(endpoint.host == ProcessInfo.processInfo.hostName)
        #expect(TCPProbe.accepts(port: world.server.mqttPort))
        #expect(TCPProbe.accepts(port: world.server.webSocketPort))
        // A device still connects through the relay (reached here over loopback).
        let (_, code) = try await webSocketDevice(endpoint, port: world.server.webSocketPort)
        #expect(code == 0)
        try await world.stop()
    }
}
