import Foundation
import MQTTBridge
import ProcessSupport
import TestSupport
import Testing
import TopicGateCore

/// How the client proves itself to a broker that asks more than a password: a password signed
/// anew for each CONNECT, and TLS with the broker's CA and a client certificate.
@Suite("MQTTBridge credentials against a real broker")
struct MQTTClientCredentialTests {
    /// How long the test's passwords live: long enough to connect on a loaded machine.
    static let lifetime: Duration = .seconds(8)

    /// A superuser client of `broker` whose password expires at `expiresAt`; `renewing`: signed
    /// anew before each CONNECT (each living `lifetime`), otherwise that one password.
    static func client(_ broker: BrokerProcess, renewing: Bool, clientID: String, expiresAt: UnixSeconds) throws
        -> MQTTClient
    {
        let signer = broker.signer
        let now = UnixSeconds.wallClock
        var configuration = MQTTClientConfiguration(
            host: "127.0.0.1", port: broker.port, clientID: clientID, username: "topicgate",
            password: signer.gatewayPassword(username: "topicgate", issuedAt: now, expiresAt: expiresAt),
            reconnectDelay: (1, 1))
        if renewing {
            configuration.renewPassword = {
                let now = UnixSeconds.wallClock
                return signer.gatewayPassword(username: "topicgate", issuedAt: now, expiresAt: now + lifetime)
            }
        }
        return try MQTTClient(configuration: configuration)
    }

    @Test(
        "A password renewed before each CONNECT: past the first one's expiry the client reconnects after a broker restart, while a password signed once is refused"
    )
    func renewedPassword() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let renewing = try Self.client(
            broker, renewing: true, clientID: "gw-renewing", expiresAt: .wallClock + .seconds(1))
        defer { renewing.shutdown() }
        var renewingEvents = renewing.connectionEvents.makeAsyncIterator()
        try await renewing.connect(timeout: .seconds(10))
        #expect(await renewingEvents.next() == .connected)
        // Signed once, just before its first CONNECT.
        let expiry = UnixSeconds.wallClock + Self.lifetime
        let once = try Self.client(broker, renewing: false, clientID: "gw-once", expiresAt: expiry)
        defer { once.shutdown() }
        var onceEvents = once.connectionEvents.makeAsyncIterator()
        try await once.connect(timeout: .seconds(10))
        #expect(await onceEvents.next() == .connected)
        // Past both first passwords' expiry; the connections made before stay up until the restart.
        while UnixSeconds.wallClock <= expiry + .seconds(1) { try await Task.sleep(for: .milliseconds(200)) }
        try await broker.stop()
        try await broker.start()
        #expect(await renewingEvents.next() == .disconnected(expected: false))
        #expect(await renewingEvents.next() == .connected)
        try await renewing.publish("dev-x", payload: Array("after".utf8), timeout: .seconds(5))
        #expect(await onceEvents.next() == .disconnected(expected: false))
        let refused = await onceEvents.next()
        if case .refused = refused {
        } else {
            Issue.record("the expired password was not refused: \(String(describing: refused))")
        }
        #expect(!once.isConnected)
    }

    @Test(
        "TLS to a broker that asks for a client certificate: accepted with the broker's CA and the certificate; refused without the certificate, or trusting another CA"
    )
    func clientCertificate() async throws {
        let folder = TestFolder.url.appendingPathComponent("tg-mtls-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try await TestCertificate(in: folder + "/server")
        let client = try await TestCertificate(in: folder + "/client")
        let stranger = try await TestCertificate(in: folder + "/stranger")
        let broker = try BrokerProcess(
            tls: .init(certfile: server.certificate, keyfile: server.privateKey, cafile: client.certificate),
            requiresClientCertificate: true)
        try await broker.start()
        func gateway(trusting authority: String, certificate: TestCertificate?) throws -> MQTTClient {
            let now = UnixSeconds.wallClock
            var configuration = MQTTClientConfiguration(
                host: "localhost", port: broker.tlsPort, clientID: "gw-\(UUID().uuidString.prefix(8))",
                username: "topicgate",
                password: broker.signer.gatewayPassword(
                    username: "topicgate", issuedAt: now, expiresAt: now + .seconds(60)),
                reconnectDelay: (1, 1))
            configuration.tlsCAFile = authority
            configuration.tlsCertificateFile = certificate?.certificate
            configuration.tlsKeyFile = certificate?.privateKey
            return try MQTTClient(configuration: configuration)
        }
        let accepted = try gateway(trusting: server.certificate, certificate: client)
        defer { accepted.shutdown() }
        try await accepted.connect(timeout: .seconds(5))
        try await accepted.publish("dev-tls", payload: Array("over TLS".utf8), timeout: .seconds(5))
        for (authority, certificate) in [(server.certificate, nil), (stranger.certificate, client)] {
            let refused = try gateway(trusting: authority, certificate: certificate)
            defer { refused.shutdown() }
            await #expect(throws: (any Error).self) { try await refused.connect(timeout: .seconds(3)) }
            #expect(!refused.isConnected)
        }
    }
}
