import Foundation
import MQTTBridge
import NIOCore
import NIOHTTP1
import NIOPosix
import ProcessSupport
import TopicGateCore

/// What a benchmark runs against: by default a `topicgate serve` child with its embedded
/// Mosquitto (the same broker the raw baselines use), on free loopback ports in a temporary data
/// directory, with the abuse limits off; or a given running gateway and broker (`BenchTarget`).
/// Also the clients' event loops.
final class BenchWorld: @unchecked Sendable {
    // @unchecked: set up once in `start`, then only read.
    let executable: String
    let directory: String
    private(set) var httpHost = "127.0.0.1"
    private(set) var httpPort: Int
    private(set) var mqttHost = "127.0.0.1"
    private(set) var mqttPort: Int
    private(set) var gatewayUsername = "topicgate"
    let given: BenchTarget?
    let group: MultiThreadedEventLoopGroup
    private(set) var gateway: ChildProcess?
    /// The second gateway of a two-gateway run (same database and broker), and its HTTP port.
    private(set) var secondGateway: ChildProcess?
    private(set) var secondHTTPPort: Int?
    /// The PostgreSQL server of the gateway, when the bench runs it on PostgreSQL.
    private(set) var database: PostgresServer?
    let postgres: Bool
    /// Gateways to start: 1, or 2 on one PostgreSQL and one broker (`postgres` then).
    let gateways: Int
    private(set) var appID = ""
    private(set) var clientID = ""
    private(set) var clientSecret = ""
    private(set) var signer: MQTTCredentialSigner?

    /// A world that starts its own gateway with `executable`, or measures `given`.
    init(executable: String, given: BenchTarget? = nil, postgres: Bool = false, gateways: Int = 1) {
        self.executable = executable
        self.given = given
        self.postgres = postgres || gateways > 1
        self.gateways = gateways
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("topicgate-bench-\(UUID().uuidString)").path
        httpPort = TCPProbe.freePort()
        mqttPort = TCPProbe.freePort()
        group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
    }

    var api: String { "/api/apps/\(appID)" }

    /// The broker's process, when it runs on this machine.
    var brokerPID: pid_t? {
        if let given { return given.brokerPID }
        return (try? String(contentsOfFile: directory + "/broker/mosquitto.pid", encoding: .utf8))
            .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    var gatewayPID: pid_t? { given?.gatewayPID ?? gateway?.pid }

    /// Starts the gateway (or checks the given one) and waits until it is ready.
    func start() async throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if let given {
            httpHost = given.httpHost
            httpPort = given.httpPort
            mqttHost = given.mqttHost
            mqttPort = given.mqttPort
            gatewayUsername = given.gatewayUsername
            appID = given.appID
            clientID = given.clientID
            clientSecret = given.clientSecret
            signer = MQTTCredentialSigner(secret: given.mqttSecret)
            try await waitUntilReady(deadline: .now + .seconds(10))
            return
        }
        var storage: [String] = []
        if postgres {
            let database = try await PostgresServer.start(durable: true)
            self.database = database
            storage = ["--database", database.url()]
        }
        let gateway = try ChildProcess.spawn(
            executable: executable,
            arguments: ["serve"] + storage + [
                "--port", "\(httpPort)", "--mqtt-port", "\(mqttPort)", "--data-dir", directory,
            ] + Self.unlimited,
            logPath: directory + ".out")
        self.gateway = gateway
        try await waitUntilReady(deadline: .now + .seconds(60))
        if gateways > 1 { try await startSecondGateway(storage: storage) }
        (appID, clientID, clientSecret) = try Self.appCredentials(printedTo: directory + ".out")
        signer = MQTTCredentialSigner(
            secret: try String(contentsOfFile: directory + "/mqtt-secret", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The default app's credentials as a new gateway printed them to `path`.
    static func appCredentials(printedTo path: String) throws -> (appID: String, clientID: String, secret: String) {
        let output = try String(contentsOfFile: path, encoding: .utf8)
        func value(_ key: String) -> String? {
            output.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(key + ":") }
                .map { String($0.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces) }
        }
        guard let appID = value("appID"), let clientID = value("clientID"), let secret = value("clientSecret") else {
            throw BenchError("the gateway did not print its app credentials; see \(path)")
        }
        return (appID, clientID, secret)
    }

    /// The arguments of `topicgate serve` that turn its abuse limits and quotas off (the bench
    /// would meet its own 429s and 403s) and the WebSockets relay (a port the bench does not use).
    static let unlimited = [
        "--log-level", "error", "--signup-limit", "off", "--signup-limit-per-app", "off", "--login-failure-limit",
        "off", "--login-failure-limit-per-app", "off", "--max-installations", "off", "--max-topics", "off",
        "--max-subscriptions", "off", "--mqtt-ws-port", "0",
    ]

    /// A second gateway on the same database, using the first one's broker and MQTT secret.
    private func startSecondGateway(storage: [String]) async throws {
        let port = TCPProbe.freePort()
        let second = try ChildProcess.spawn(
            executable: executable,
            arguments: ["serve"] + storage + [
                "--port", "\(port)", "--broker", "mqtt://127.0.0.1:\(mqttPort)", "--mqtt-secret-file",
                directory + "/mqtt-secret", "--data-dir", directory + "-2",
            ] + Self.unlimited,
            logPath: directory + "-2.out")
        secondGateway = second
        secondHTTPPort = port
        try await waitUntilReady(port: port, process: second, deadline: .now + .seconds(60))
    }

    /// Starts the minimal durable write-and-publish handler (`topicgate bench-bound`) on the
    /// gateway's broker and account, and on its PostgreSQL database under `--postgres`: the
    /// process and its HTTP port. Nil for a gateway the bench
    /// did not start (its broker's secret is not at hand to share).
    func startBound() async throws -> (process: ChildProcess, port: Int)? {
        guard given == nil else { return nil }
        let port = TCPProbe.freePort()
        let process = try ChildProcess.spawn(
            executable: executable,
            arguments: [
                "bench-bound", "--port", "\(port)", "--data-dir", directory + "-bound", "--broker",
                "mqtt://127.0.0.1:\(mqttPort)", "--mqtt-secret-file", directory + "/mqtt-secret",
                "--mqtt-gateway-username", gatewayUsername,
            ] + (database.map { ["--database", $0.url()] } ?? []),
            logPath: directory + "-bound.out")
        do {
            try await waitUntilReady(port: port, process: process, deadline: .now + .seconds(30))
        } catch {
            _ = await process.stop()
            throw error
        }
        return (process, port)
    }

    /// Runs `body` with `connections` keep-alive connections to a durable bound started for it
    /// (`startBound`), then closes them and stops the bound. Nil for a gateway the bench did not
    /// start.
    func withBound<T>(connections count: Int, _ body: ([BenchHTTPConnection]) async throws -> T) async throws -> T? {
        guard let (process, port) = try await startBound() else { return nil }
        var connections: [BenchHTTPConnection] = []
        do {
            for _ in 0..<count { connections.append(try await BenchHTTPConnection.open(group: group, port: port)) }
            let result = try await body(connections)
            await Self.close(connections)
            _ = await process.stop()
            return result
        } catch {
            await Self.close(connections)
            _ = await process.stop()
            throw error
        }
    }

    /// Polls `GET /ready` until it answers 200.
    func waitUntilReady(deadline: ContinuousClock.Instant) async throws {
        try await waitUntilReady(port: httpPort, process: gateway, deadline: deadline)
    }

    /// Polls `GET /ready` of the gateway on `port` until it answers 200.
    func waitUntilReady(port httpPort: Int, process gateway: ChildProcess?, deadline: ContinuousClock.Instant)
        async throws
    {
        while ContinuousClock.now < deadline {
            if let gateway, !gateway.isRunning { throw BenchError("topicgate serve exited; see \(directory).out") }
            if let connection = try? await BenchHTTPConnection.open(group: group, host: httpHost, port: httpPort) {
                let ready = try? await connection.send(.GET, "/ready")
                await connection.close()
                if ready?.status == 200 { return }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BenchError("the gateway at \(httpHost):\(httpPort) is not ready (GET /ready)")
    }

    /// Stops the gateway it started; removes its data unless `keep` (after a failure, for its logs).
    func stop(keep: Bool = false) async {
        if let secondGateway { _ = await secondGateway.stop() }
        if let gateway { _ = await gateway.stop() }
        await database?.stop()
        try? await group.shutdownGracefully()
        guard !keep else { return }
        try? FileManager.default.removeItem(atPath: directory)
        try? FileManager.default.removeItem(atPath: directory + ".out")
        try? FileManager.default.removeItem(atPath: directory + "-2")
        try? FileManager.default.removeItem(atPath: directory + "-2.out")
        try? FileManager.default.removeItem(atPath: directory + "-bound")
        try? FileManager.default.removeItem(atPath: directory + "-bound.out")
    }

    static func close(_ connections: [BenchHTTPConnection]) async {
        for connection in connections { await connection.close() }
    }

    /// `count` keep-alive HTTP connections to the gateway (to both, alternately, when two run:
    /// as a round-robin load balancer would spread them).
    func connections(_ count: Int) async throws -> [BenchHTTPConnection] {
        var connections: [BenchHTTPConnection] = []
        let ports = [httpPort] + (secondHTTPPort.map { [$0] } ?? [])
        for index in 0..<count {
            connections.append(
                try await BenchHTTPConnection.open(group: group, host: httpHost, port: ports[index % ports.count]))
        }
        return connections
    }

    /// An MQTT client on the gateway's own account (the plugin's superuser), as the raw
    /// baselines' publisher: the same library and QoS the gateway publishes with.
    func rawPublisher(maxInflight: Int = 100, port: Int? = nil) async throws -> MQTTClient {
        guard let signer else { throw BenchError("the gateway is not started") }
        let now = UnixSeconds(Int64(Date().timeIntervalSince1970))
        let client = try MQTTClient(
            configuration: MQTTClientConfiguration(
                host: mqttHost, port: port ?? mqttPort,
                clientID: "\(gatewayUsername)-bench-\(UUID().uuidString.prefix(8))",
                username: gatewayUsername,
                password: signer.gatewayPassword(
                    username: gatewayUsername, issuedAt: now, expiresAt: now + .seconds(3600)),
                cleanSession: true, maxInflightMessages: maxInflight))
        try await client.connect(timeout: .seconds(10))
        return client
    }

    /// A device password for `topic`, as the gateway would issue it.
    func devicePassword(_ topic: String) -> String {
        let now = UnixSeconds(Int64(Date().timeIntervalSince1970))
        return signer?.devicePassword(topic: topic, issuedAt: now, expiresAt: now + .seconds(3600)) ?? ""
    }

    /// The gateway's peak resident memory since the last `resetGatewayPeak` (when it runs here).
    var gatewayPeak: Int? { gatewayPID.flatMap(ProcessMemory.peak) }

    /// The gateway's resident memory now (when it runs here).
    var gatewayResident: Int? { gatewayPID.flatMap(ProcessMemory.resident) }

    func resetGatewayPeak() {
        if let gatewayPID { ProcessMemory.resetPeak(gatewayPID) }
    }
}
