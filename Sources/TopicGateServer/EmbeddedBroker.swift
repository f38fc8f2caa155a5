import Foundation
import Logging
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
    let logger: Logger

    init(configuration: EmbeddedBrokerConfiguration, secretFile: String, maximumPacketSize: Int, logger: Logger) {
        self.configuration = configuration
        self.secretFile = secretFile
        self.maximumPacketSize = maximumPacketSize
        self.logger = logger
    }

    var configPath: String { configuration.directory + "/mosquitto.conf" }
    var logPath: String { configuration.directory + "/mosquitto.log" }
    var pidPath: String { configuration.directory + "/mosquitto.pid" }

    /// Writes the instance's configuration file.
    func prepare() throws {
        let manager = FileManager.default
        try manager.createDirectory(atPath: configuration.directory, withIntermediateDirectories: true)
        guard manager.isReadableFile(atPath: configuration.pluginPath) else {
            throw EmbeddedBrokerError("The broker plugin \(configuration.pluginPath) does not exist; run `swift build` (or `make run`).")
        }
        let template = try String(contentsOfFile: configuration.templatePath, encoding: .utf8)
        let config = EmbeddedBrokerConfigFile.render(
            template: template, port: configuration.port, pluginPath: Self.absolute(configuration.pluginPath),
            secretFile: Self.absolute(secretFile), directory: Self.absolute(configuration.directory),
            runAsUser: geteuid() == 0 ? "root" : nil, maximumPacketSize: maximumPacketSize)
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    func run() async throws {
        try prepare()
        stopStaleBroker()
        var firstStart = true
        var delay = Duration.seconds(1)
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let child = try ChildProcess.spawn(
                executable: configuration.mosquittoPath, arguments: ["-c", configPath], logPath: logPath)
            logger.info("Broker starting", metadata: ["pid": "\(child.pid)", "port": "\(configuration.port)"])
            let listening = await waitUntilListening(child)
            if !listening, firstStart {
                // Never came up (a port in use, a bad configuration): that does not heal by itself.
                await child.stop(grace: .seconds(2))
                throw EmbeddedBrokerError(
                    "Mosquitto did not start listening on 127.0.0.1:\(configuration.port); is the port in use? "
                        + "Its log, \(logPath), ends with:\n" + lastLines(of: logPath))
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
                "Broker exited; restarting it", metadata: ["status": "\(status)", "log": "\(logPath)", "in": "\(delay)"])
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(30))
        }
    }

    /// Waits until the broker accepts connections (true) or exits or takes too long (false).
    private func waitUntilListening(_ child: ChildProcess) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if TCPProbe.accepts(port: configuration.port) { return child.isRunning }
            if !child.isRunning { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Stops a Mosquitto whose pid file this directory holds (left by a killed gateway).
    func stopStaleBroker() {
        guard let text = try? String(contentsOfFile: pidPath, encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1,
            let commandLine = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8),
            commandLine.contains("mosquitto"), commandLine.contains(configPath)
        else { return }
        logger.notice("Stopping the broker a previous gateway left running", metadata: ["pid": "\(pid)"])
        kill(pid, SIGTERM)
        for _ in 0..<50 where kill(pid, 0) == 0 { usleep(100_000) }
        if kill(pid, 0) == 0 { kill(pid, SIGKILL) }
    }

    private func lastLines(of path: String) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(5).joined(separator: "\n")
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
