import Foundation
import HTTPTypes
import MQTTBridge
import ProcessSupport
import TestSupport
import Testing
import TopicGateCore

/// The embedded broker's start as a first-time user meets it: as root with the data folder
/// under a private parent (a clone in `/root`), with a port another program holds, with a
/// configuration Mosquitto refuses; and the TLS and secure WebSockets listeners turned off
/// with port 0.
@Suite("The embedded broker's start")
struct EmbeddedBrokerStartTests {
    @Test("Under a 0700 parent folder (as root: the broker runs as its own user) a device gets its push")
    func privateParentFolder() async throws {
        let parent = TestFolder.url.appendingPathComponent("tg-private-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(
            atPath: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let world = try await PushWorld.started(embedded: true, directory: parent + "/tg-data")
        let scene = try await world.subscribedMember()
        let device = try await world.connectedDevice(scene.endpoint)
        let received = ReceivedMessages(device)
        try await world.push(scene.topic, token: scene.owner.token, message: "behind a private folder")
        let messages = await received.wait(for: 1)
        #expect(messages.first?.object["msg"]?.stringValue == "behind a private folder")
        var brokerFiles: String?
        if geteuid() == 0, getpwnam("mosquitto") != nil {
            // The broker's own files went where its account can reach them, and the gateway said so.
            let output = try String(contentsOfFile: world.server.outputPath, encoding: .utf8)
            let line = output.split(separator: "\n").first { $0.hasPrefix("The broker's own files") }
            #expect(line?.contains(" are in /var/lib/topicgate/broker-") == true, "\(output)")
            // The folder is this test's alone (named after its data folder): removed once the broker stops.
            brokerFiles = line?.split(separator: " ").first { $0.hasPrefix("/var/lib/topicgate/broker-") }.map {
                String($0.dropLast())
            }
        }
        device.shutdown()
        try await world.stop()
        if let brokerFiles { try? FileManager.default.removeItem(atPath: brokerFiles) }
    }

    @Test("A rotation of the MQTT secret: with the old one kept as mqtt-secret.previous, old and new passwords connect")
    func secretRotation() async throws {
        let world = try await PushWorld.started(embedded: true)
        let user = try await world.pseudoUser()
        let before = try await world.install(token: user.token)
        // The gateway stops; the secret is rotated, the old one kept beside the new.
        _ = try await world.server.stop(signal: SIGTERM)
        let secret = world.directory + "/mqtt-secret"
        try FileManager.default.moveItem(atPath: secret, toPath: secret + ".previous")
        _ = FileManager.default.createFile(
            atPath: secret, contents: Data((String(repeating: "9f", count: 32) + "\n").utf8),
            attributes: [.posixPermissions: 0o600])
        try await world.server.start()
        // The device that knows only its old password still connects; a new endpoint is signed
        // with the new secret and connects too.
        let old = try await world.connectedDevice(before)
        old.shutdown()
        let after = try await world.install(token: user.token)
        #expect(after.password != before.password)
        let new = try await world.connectedDevice(after)
        new.shutdown()
        // The rotation ends: without the previous secret, the old password is refused.
        _ = try await world.server.stop(signal: SIGTERM)
        try FileManager.default.removeItem(atPath: secret + ".previous")
        try await world.server.start()
        let refused = try world.device(before)
        await #expect(throws: MQTTError.self) { try await refused.connect(timeout: .seconds(5)) }
        refused.shutdown()
        try await world.stop()
    }

    /// `topicgate serve` with `arguments` and an embedded broker, which must fail: its output.
    func failedStart(_ arguments: [String], mqttPort: Int) async throws -> String {
        let directory = TestFolder.url.appendingPathComponent("tg-fail-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = Pipe()
        let process = try ChildProcess.spawn(
            executable: ServerProcess.executable.path,
            arguments: [
                "serve", "--data-dir", directory, "--port", "\(FreePort.next())", "--mqtt-port", "\(mqttPort)",
                "--mqtt-ws-port", "0", "--log-level", "error",
            ] + arguments,
            output: output.fileHandleForWriting.fileDescriptor, error: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        let text = await ServerProcess.readToEnd(output.fileHandleForReading)
        #expect(await process.exit() != 0)
        #expect(!text.contains("is a port in use?"))
        return text
    }

    @Test("A broker that cannot start is reported with the cause from its own log")
    func causeFromTheBrokerLog() async throws {
        let template = TestFolder.url.appendingPathComponent("tg-bad-\(UUID().uuidString).conf")
            .path
        defer { try? FileManager.default.removeItem(atPath: template) }
        let policy = try String(
            contentsOf: BrokerProcess.repository.appendingPathComponent("broker-config/mosquitto.conf"), encoding: .utf8
        )
        try (policy + "\nno_such_option 1\n").write(toFile: template, atomically: true, encoding: .utf8)
        let text = try await failedStart(["--broker-config", template], mqttPort: FreePort.next())
        #expect(text.contains("Error: Unknown configuration variable \"no_such_option\""), "\(text)")
    }

    @Test("A port another program holds is named as such")
    func portInUse() async throws {
        // Many sockets before it, as on a busy machine: the table of sockets is read past its
        // first page.
        let others = try (0..<1000).map { _ in try PortHolder() }
        let holder = try PortHolder()
        let text = try await failedStart([], mqttPort: holder.port)
        // The holder is this test process: named with its pid, and the two ways out.
        let name = try String(contentsOfFile: "/proc/self/comm", encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(
            text.contains("Port \(holder.port) on 127.0.0.1 is already in use by \(name) (pid \(getpid())"), "\(text)")
        #expect(text.contains("make run ARGS=\"--mqtt-port \(holder.port + 1)\""), "\(text)")
        #expect(text.contains("or stop it (kill \(getpid()))"), "\(text)")
        withExtendedLifetime((holder, others)) {}
    }

    @Test("--mqtt-tls-port 0 and --mqtt-wss-port 0 turn those listeners off, as --mqtt-ws-port 0 does")
    func portZeroTurnsListenersOff() async throws {
        let directory = TestFolder.url.appendingPathComponent("tg-cert-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificate = try await TestCertificate(in: directory)
        let world = try await PushWorld.started(
            embedded: true,
            arguments: [
                "--mqtt-tls-cert", certificate.certificate, "--mqtt-tls-key", certificate.privateKey,
                "--mqtt-tls-port", "0", "--mqtt-wss-port", "0",
            ])
        let user = try await world.pseudoUser()
        let endpoint = try await world.install(token: user.token)
        #expect(endpoint.object["portSSL"]?.intValue == 0)
        #expect(endpoint.object["portWSS"]?.intValue == 0)
        #expect(endpoint.object["portWS"]?.intValue == Int64(world.server.webSocketPort))
        let config = try String(contentsOfFile: world.directory + "/broker/mosquitto.conf", encoding: .utf8)
        #expect(!config.contains("certfile"), "no TLS listener in the broker's configuration")
        try await world.stop()
    }
}

/// A loopback port held by a listening socket of this process: another program, to the broker.
final class PortHolder {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && listen(descriptor, 8) == 0
                    && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw TestFailure("cannot listen on a loopback port (errno \(errno))")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}
