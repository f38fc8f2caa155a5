import Foundation
import MQTTBridge
import ProcessSupport
import TopicGateCore

/// A real Mosquitto for a test: started from the repository's `broker-config/mosquitto.conf`
/// (rendered exactly as `topicgate serve` renders it) on a free loopback port, with the auth
/// plugin the package built, in its own temporary folder. It can be stopped (SIGTERM, so that
/// it writes its persistence file, or SIGKILL) and started again on the same port and folder.
public final class BrokerProcess: @unchecked Sendable {
    // @unchecked: `process` is only touched by the test that owns this object, one call at a time.
    public let port: Int
    public let directory: String
    public let secret: String
    public let secretFile: String
    /// A TLS listener besides the plain one, on `tlsPort`; with `requiresClientCertificate`,
    /// its clients must present a certificate that `tls.cafile` signed.
    public let tls: EmbeddedBrokerConfigFile.TLSListener?
    public let requiresClientCertificate: Bool
    public let tlsPort: Int
    /// False: a Mosquitto without TopicGate's plugin, open to anyone (a broker whose plugin
    /// knows nothing of what the gateway asks it).
    public let loadsPlugin: Bool
    /// Lines after the rendered configuration (a later setting wins in Mosquitto's).
    public let appendedConfig: String
    private var process: ChildProcess?

    /// The repository's root, found from this file.
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    public static let pluginPath = BuildProducts.path("libTopicGateMosquittoAuth.so")
    public static let templatePath = repository.appendingPathComponent("broker-config/mosquitto.conf").path
    public static let mosquittoPath = MosquittoExecutable.find() ?? "/usr/sbin/mosquitto"

    /// A broker in a fresh folder (or in `directory`, sharing its secret file).
    public init(
        directory: String? = nil, tls: EmbeddedBrokerConfigFile.TLSListener? = nil,
        requiresClientCertificate: Bool = false, loadsPlugin: Bool = true, appendedConfig: String = ""
    ) throws {
        self.loadsPlugin = loadsPlugin
        self.appendedConfig = appendedConfig
        self.tls = tls
        self.requiresClientCertificate = requiresClientCertificate
        self.tlsPort = tls == nil ? 0 : FreePort.next()
        self.directory =
            directory
            ?? TestFolder.url
            .appendingPathComponent("topicgate-broker-\(UUID().uuidString)").path
        self.port = FreePort.next()
        try FileManager.default.createDirectory(atPath: self.directory, withIntermediateDirectories: true)
        secretFile = self.directory + "/mqtt-secret"
        secret = try Self.secret(in: secretFile)
    }

    /// The secret in `path`, made (64 hex digits, mode 0600) when the file does not exist yet.
    private static func secret(in path: String) throws -> String {
        if let existing = try? String(contentsOfFile: path, encoding: .utf8) {
            return existing.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let secret = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data((secret + "\n").utf8), attributes: [.posixPermissions: 0o600])
        else { throw TestFailure("cannot write \(path)") }
        return secret
    }

    public var signer: MQTTCredentialSigner { MQTTCredentialSigner(secret: secret) }

    /// Starts Mosquitto and waits until it accepts TCP connections.
    public func start() async throws {
        let template = try String(contentsOfFile: Self.templatePath, encoding: .utf8)
        let config =
            !loadsPlugin
            ? "listener \(port) 127.0.0.1\nallow_anonymous true\nlog_dest stderr\n"
            : EmbeddedBrokerConfigFile.render(
                template: template, port: port, pluginPath: Self.pluginPath, secretFile: secretFile,
                directory: directory, runAsUser: geteuid() == 0 ? "root" : nil, tls: tls, tlsPort: tlsPort)
                // The TLS listener is the last one: this applies to it.
                + (requiresClientCertificate ? "\nrequire_certificate true\n" : "") + appendedConfig
        let configPath = directory + "/mosquitto.conf"
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let process = try ChildProcess.spawn(
            executable: Self.mosquittoPath, arguments: ["-c", configPath], logPath: directory + "/mosquitto.log")
        self.process = process
        for _ in 0..<800 {
            if TCPProbe.accepts(port: port) { return }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw TestFailure("Mosquitto did not start on port \(port); log:\n\(self.log)")
    }

    /// Sends `signal` (SIGSTOP freezes it: connections stay open, nothing is answered; SIGCONT
    /// thaws it).
    public func send(signal: Int32) {
        if let process { kill(process.pid, signal) }
    }

    /// Stops it with `signal` (SIGTERM saves persistence; SIGKILL does not) and waits.
    public func stop(signal: Int32 = SIGTERM) async throws {
        guard let process else { return }
        await process.stop(signal: signal, grace: .seconds(10))
        self.process = nil
    }

    public var log: String { (try? String(contentsOfFile: directory + "/mosquitto.log", encoding: .utf8)) ?? "" }

    /// A device client with a password the gateway would have signed for `username`.
    public func deviceClient(
        _ username: String, clientID: String? = nil, password: String? = nil, cleanSession: Bool = true
    ) throws -> MQTTClient {
        let now = UnixSeconds.wallClock
        return try MQTTClient(
            configuration: MQTTClientConfiguration(
                host: "127.0.0.1", port: port, clientID: clientID ?? username, username: username,
                password: password
                    ?? signer.devicePassword(topic: username, issuedAt: now, expiresAt: now + .seconds(3600)),
                cleanSession: cleanSession, reconnectDelay: (1, 1)))
    }

    /// The gateway's superuser client.
    public func gatewayClient(username: String = "topicgate", clientID: String = "topicgate-test") throws -> MQTTClient
    {
        let now = UnixSeconds.wallClock
        return try MQTTClient(
            configuration: MQTTClientConfiguration(
                host: "127.0.0.1", port: port, clientID: clientID, username: username,
                password: signer.gatewayPassword(username: username, issuedAt: now, expiresAt: now + .seconds(3600)),
                reconnectDelay: (1, 1)))
    }

    deinit {
        process?.killNow()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
