import Foundation
import Logging
import ProcessSupport
import ServiceLifecycle

/// Runs Mosquitto as a child process with the configuration generated from
/// `broker-config/mosquitto.conf`: restarts it when it dies, stops it (SIGTERM, so that it
/// saves its persistence file) on shutdown. A broker left running by a gateway that was killed
/// is stopped first, found by its pid file. The broker's log goes to `<directory>/mosquitto.log`.
final class EmbeddedBroker: Service, Sendable {
    let configuration: EmbeddedBrokerConfiguration
    let secretFile: String
    /// Written into the configuration: the gateway and the broker agree on it.
    let maximumPacketSize: Int
    /// How long an away device's session, with its waiting pushes, is kept.
    let pushLife: PushLife
    /// The address its listeners bind to, and its TLS listener (`--mqtt-host`, `--mqtt-tls-*`).
    let listeners: DeviceListeners
    let logger: Logger

    /// Its folders and files, and who may write each (see `BrokerFiles`).
    let files: BrokerFiles

    init(
        configuration: EmbeddedBrokerConfiguration, secretFile: String, maximumPacketSize: Int,
        listeners: DeviceListeners = DeviceListeners(), pushLife: PushLife = .default, logger: Logger
    ) {
        self.configuration = configuration
        self.pushLife = pushLife
        self.secretFile = secretFile
        self.maximumPacketSize = maximumPacketSize
        self.listeners = listeners
        self.logger = logger
        files = BrokerFiles(
            directory: configuration.directory, filesDirectory: configuration.filesDirectory,
            account: configuration.account)
    }

    var configPath: String { files.configPath }
    var logPath: String { files.logPath }
    var pidPath: String { files.pidPath }

    /// The user the broker runs as when the gateway runs as root: Debian's `mosquitto`
    /// account (Mosquitto loads its plugins, which read the secret, after it drops to it).
    static let unprivilegedUser = "mosquitto"

    /// True when the embedded broker of `push` will drop root privileges to its own user.
    static func dropsPrivileges(_ push: PushConfiguration?) -> Bool {
        guard case .embedded(let broker)? = push?.broker else { return false }
        return broker.account != nil
    }

    /// Renders the configuration anew from the template (before every start of the broker, so
    /// that nothing written into the last one survives); when running as root, gives the
    /// broker's account read-only copies of what it reads and one folder it owns for what it
    /// writes.
    func prepare() throws {
        let manager = FileManager.default
        try manager.createDirectory(atPath: configuration.directory, withIntermediateDirectories: true)
        if geteuid() == 0, let refusal = PrivilegedPath.refusal(configuration.templatePath, what: "broker template") {
            throw EmbeddedBrokerError(refusal)
        }
        try files.prepareFolders()
        var runAsUser: String?
        var brokerSecretFile = secretFile
        // `<secret>.previous`, beside the secret: a rotation in progress (see docs/operations.md).
        var previousSecretFile: String? =
            manager.fileExists(atPath: secretFile + ".previous") ? secretFile + ".previous" : nil
        var pluginPath = configuration.pluginPath
        var tls = listeners.tls
        if geteuid() == 0 {
            if let account = files.account {
                runAsUser = account.name
                // Mosquitto drops to its user before it loads the plugin: the plugin reads its
                // own copy of the secret, which that user may read but not write.
                brokerSecretFile = try files.copyForBroker(secretFile, as: "mqtt-secret")
                previousSecretFile = try previousSecretFile.map {
                    try files.copyForBroker($0, as: "mqtt-secret.previous")
                }
                if !account.canReach((Self.absolute(pluginPath) as NSString).deletingLastPathComponent) {
                    pluginPath = try files.copyForBroker(pluginPath, as: "libTopicGateMosquittoAuth.so")
                }
                // Its TLS files likewise: the operator's copies may be readable by root only.
                tls = try tls.map(copyForBroker)
            } else {
                runAsUser = "root"
                logger.warning("No 'mosquitto' user: the embedded broker runs as root")
            }
        }
        guard manager.isReadableFile(atPath: configuration.pluginPath) else {
            throw EmbeddedBrokerError(
                "The broker plugin \(configuration.pluginPath) does not exist; run `swift build` (or `make run`).")
        }
        let template = try String(contentsOfFile: configuration.templatePath, encoding: .utf8)
        let config = EmbeddedBrokerConfigFile.render(
            template: template, port: configuration.port, pluginPath: Self.absolute(pluginPath),
            secretFile: Self.absolute(brokerSecretFile), directory: Self.absolute(files.stateDirectory),
            runAsUser: runAsUser, maximumPacketSize: maximumPacketSize, host: listeners.host,
            tls: listeners.tlsPort == nil
                ? nil
                : tls.map {
                    EmbeddedBrokerConfigFile.TLSListener(
                        certfile: Self.absolute($0.certificate), keyfile: Self.absolute($0.privateKey),
                        cafile: $0.certificateAuthority.map(Self.absolute))
                }, tlsPort: listeners.tlsPort ?? 0, previousSecretFile: previousSecretFile.map(Self.absolute),
            persistentClientExpiration: pushLife.brokerSetting)
        try files.write(Data(config.utf8), to: configPath, mode: files.account == nil ? 0o600 : 0o640)
    }

    /// Copies of `files` in the broker's files folder, for the broker's own user.
    private func copyForBroker(_ tls: TLSFiles) throws -> TLSFiles {
        TLSFiles(
            certificate: try files.copyForBroker(tls.certificate, as: "tls-certificate.pem"),
            privateKey: try files.copyForBroker(tls.privateKey, as: "tls-key.pem"),
            certificateAuthority: try tls.certificateAuthority.map { try files.copyForBroker($0, as: "tls-ca.pem") })
    }

    func run() async throws {
        do {
            try await start()
        } catch {
            // Said at once: the gateway stops because of it, and the stop may cut the final
            // report short.
            logger.critical("The embedded broker cannot run: \(error)")
            throw error
        }
    }

    /// `buildApplication` prepared the first start before anything ran; each restart prepares
    /// again.
    private func start() async throws {
        stopStaleBroker()
        // Another program on the port would answer the probe below in the broker's place.
        if TCPProbe.accepts(host: listeners.localHost, port: configuration.port) {
            throw EmbeddedBrokerError(
                Self.portTaken(
                    configuration.port, host: listeners.localHost, holder: PortHolder.find(port: configuration.port)))
        }
        var firstStart = true
        var delay = Duration.seconds(1)
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if !firstStart { try prepare() }
            let child = try ChildProcess.spawn(
                executable: configuration.mosquittoPath, arguments: ["-c", configPath], logPath: logPath)
            logger.info("Broker starting", metadata: ["pid": "\(child.pid)", "port": "\(configuration.port)"])
            let listening = await waitUntilListening(child)
            if !listening, firstStart {
                // Never came up (a port in use, a folder it cannot write, a bad configuration):
                // that does not heal by itself. The broker's own log names the cause.
                let exited = child.poll()
                await child.stop(grace: .seconds(2))
                throw EmbeddedBrokerError(
                    MosquittoLog.failure(
                        log: (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "", logPath: logPath,
                        address: "\(listeners.host):\(configuration.port)", exitStatus: exited))
            }
            if listening {
                firstStart = false
                delay = .seconds(1)
            }
            let status = await withTaskCancellationOrGracefulShutdownHandler {
                await child.exit()
            } onCancelOrGracefulShutdown: {
                // SIGTERM lets Mosquitto save its persistence file (SIGKILL after 10 s); `exit()`
                // then returns.
                Task.detached { await child.stop(grace: .seconds(10)) }
            }
            if Task.isShuttingDownGracefully || Task.isCancelled {
                logger.info("Broker stopped", metadata: ["status": "\(status)"])
                return
            }
            logger.error(
                "Broker exited; restarting it",
                metadata: ["status": "\(status)", "log": "\(logPath)", "in": "\(delay)"])
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(30))
        }
    }

    /// One sentence: who holds the port, and the two ways out (another port, or stop that
    /// program: a system Mosquitto that Debian's package started is the usual one).
    static func portTaken(_ port: Int, host: String, holder: PortHolder?) -> String {
        let another =
            "give the embedded broker another port (make run ARGS=\"--mqtt-port \(port + 1)\", or "
            + "topicgate serve --mqtt-port \(port + 1))"
        guard let holder else {
            return "Port \(port) on \(host) is already in use by another program: \(another), or stop that program."
        }
        let stop =
            holder.unit.map { "sudo systemctl disable --now \($0.replacingOccurrences(of: ".service", with: ""))" }
            ?? "kill \(holder.pid)"
        return "Port \(port) on \(host) is already in use by \(holder.name) (pid \(holder.pid)"
            + (holder.unit.map { ", systemd's \($0)" } ?? "") + "): \(another), or stop it (\(stop))."
    }

    /// Waits until the broker accepts connections (true) or exits or takes too long (false).
    private func waitUntilListening(_ child: ChildProcess) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if TCPProbe.accepts(host: listeners.localHost, port: configuration.port) { return child.isRunning }
            if !child.isRunning { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Stops a Mosquitto whose pid file this directory holds (left by a killed gateway).
    func stopStaleBroker() {
        for path in [pidPath, files.legacyPidPath] { stopBroker(pidFile: path) }
        unlink(files.legacyPidPath)
    }

    private func stopBroker(pidFile: String) {
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1,
            let commandLine = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8),
            commandLine.contains("mosquitto"), commandLine.contains(configPath)
        else { return }
        logger.notice("Stopping the broker a previous gateway left running", metadata: ["pid": "\(pid)"])
        kill(pid, SIGTERM)
        for _ in 0..<50 where kill(pid, 0) == 0 { usleep(100_000) }
        if kill(pid, 0) == 0 { kill(pid, SIGKILL) }
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}

/// Why the embedded broker could not run.
struct EmbeddedBrokerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
