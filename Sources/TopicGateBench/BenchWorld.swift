import Foundation
import MQTTBridge
import NIOCore
import NIOHTTP1
import NIOPosix
import ProcessSupport
import Synchronization
import TopicGateCore

/// What a benchmark runs against: by default a `topicgate serve` child with its embedded
/// Mosquitto (the same broker the raw baselines use), on free loopback ports in a temporary data
/// directory, with the abuse limits off; with `--gateways N --brokers M` a fleet: N gateways on
/// one PostgreSQL, M Mosquittos with the plugin, every gateway spreading its installations over
/// all brokers; or a given running gateway and broker (`BenchTarget`). Also the clients' event
/// loops.
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
    /// The gateways it started, the first one's HTTP port `httpPort`; `httpPorts` all of theirs.
    private(set) var gatewayProcesses: [ChildProcess] = []
    private(set) var httpPorts: [Int] = []
    /// The brokers the devices connect to: the first gateway's embedded one, or (`brokerCount`
    /// above 1) Mosquittos the bench started from that broker's configuration.
    private(set) var brokers: [BenchBroker] = []
    /// The PostgreSQL server of the gateways, when the bench runs them on PostgreSQL.
    private(set) var database: PostgresServer?
    let postgres: Bool
    /// More settings for that PostgreSQL (`BenchOptions.postgresSettings`).
    let postgresSettings: [String]
    /// Gateways to start (on one PostgreSQL when more than one) and brokers to spread devices over.
    let gateways: Int
    let brokerCount: Int
    private(set) var appID = ""
    private(set) var clientID = ""
    private(set) var clientSecret = ""
    private(set) var signer: MQTTCredentialSigner?
    /// The durable bound's process while one runs (`startBound`).
    private let runningBound = Mutex<pid_t?>(nil)
    var boundPID: pid_t? { runningBound.withLock { $0 } }

    /// A world that starts its own gateways with `executable`, or measures `given`.
    init(
        executable: String, given: BenchTarget? = nil, postgres: Bool = false, postgresSettings: [String] = [],
        gateways: Int = 1, brokers: Int = 1
    ) {
        self.executable = executable
        self.given = given
        self.postgres = postgres || gateways > 1
        self.postgresSettings = postgresSettings
        self.gateways = gateways
        self.brokerCount = brokers
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("topicgate-bench-\(UUID().uuidString)").path
        httpPort = TCPProbe.freePort()
        mqttPort = TCPProbe.freePort()
        group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
    }

    var api: String { "/api/apps/\(appID)" }

    /// The first broker's process, when it runs on this machine.
    var brokerPID: pid_t? {
        if let given { return given.brokerPID }
        if let pid = brokers.first?.pid { return pid }
        return (try? String(contentsOfFile: directory + "/broker/state/mosquitto.pid", encoding: .utf8))
            .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// The first gateway (the one whose memory the rows report).
    var gateway: ChildProcess? { gatewayProcesses.first }
    var gatewayPID: pid_t? { given?.gatewayPID ?? gateway?.pid }
    /// Every gateway's process ID, when they run on this machine.
    var gatewayPIDs: [pid_t] { given.map { $0.gatewayPID.map { [$0] } ?? [] } ?? gatewayProcesses.map(\.pid) }
    /// More than one gateway or broker: the world runs as a fleet does.
    var isFleet: Bool { gateways > 1 || brokerCount > 1 }

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
            let database = try await PostgresServer.start(durable: true, settings: postgresSettings)
            self.database = database
            storage = ["--database", database.url()]
        }
        let first = try spawnGateway(
            storage + ["--port", "\(httpPort)", "--mqtt-port", "\(mqttPort)", "--data-dir", directory], log: ".out")
        gatewayProcesses = [first]
        httpPorts = [httpPort]
        try await waitUntilReady(deadline: .now + .seconds(60))
        (appID, clientID, clientSecret) = try Self.appCredentials(printedTo: directory + ".out")
        let secretFile = directory + "/mqtt-secret"
        signer = MQTTCredentialSigner(
            secret: try String(contentsOfFile: secretFile, encoding: .utf8).trimmingCharacters(
                in: .whitespacesAndNewlines))
        var brokerList = "mqtt://127.0.0.1:\(mqttPort)"
        if brokerCount > 1 {
            // The first gateway made the database, the app, the secret and its broker's
            // configuration; the fleet's brokers start from that configuration, and the first
            // gateway starts again with all of them instead of its embedded one.
            let template = try String(contentsOfFile: directory + "/broker/mosquitto.conf", encoding: .utf8)
            gatewayProcesses = []
            _ = await first.stop()
            for index in 0..<brokerCount {
                brokers.append(
                    try await BenchBroker.start(template: template, directory: directory + "-broker\(index)"))
            }
            mqttPort = brokers[0].port
            brokerList = BenchBroker.list(brokers)
            let restarted = try spawnGateway(
                storage + [
                    "--port", "\(httpPort)", "--broker", brokerList, "--mqtt-secret-file", secretFile, "--data-dir",
                    directory,
                ], log: ".out")
            gatewayProcesses = [restarted]
            try await waitUntilReady(deadline: .now + .seconds(60))
        } else {
            brokers = [BenchBroker(port: mqttPort, pid: brokerPID, process: nil)]
        }
        for index in 1..<max(1, gateways) {
            let port = TCPProbe.freePort()
            let next = try spawnGateway(
                storage + [
                    "--port", "\(port)", "--broker", brokerList, "--mqtt-secret-file", secretFile, "--data-dir",
                    directory + "-\(index + 1)",
                ], log: "-\(index + 1).out")
            gatewayProcesses.append(next)
            httpPorts.append(port)
            try await waitUntilReady(port: port, process: next, deadline: .now + .seconds(60))
        }
    }

    /// `topicgate serve` with `arguments` and the abuse limits off, its output in the file
    /// named by the world's directory and `log`.
    private func spawnGateway(_ arguments: [String], log: String) throws -> ChildProcess {
        try ChildProcess.spawn(
            executable: executable, arguments: ["serve"] + arguments + Self.unlimited, logPath: directory + log)
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
        "--max-subscriptions", "off", "--max-triggers", "off", "--state-limit", "off", "--anonymous-token-limit", "off",
        "--mqtt-ws-port", "0",
    ]

    /// Starts the minimal durable write-and-publish handler (`topicgate bench-bound`) on the
    /// gateway's broker and account, and on its PostgreSQL database under `--postgres`: the
    /// process and its HTTP port. Nil for a gateway the bench
    /// did not start (its broker's secret is not at hand to share).
    /// `brokerPort`: the broker it publishes on (the first one's unless given).
    func startBound(brokerPort: Int? = nil) async throws -> (process: ChildProcess, port: Int)? {
        guard given == nil else { return nil }
        let port = TCPProbe.freePort()
        let process = try ChildProcess.spawn(
            executable: executable,
            arguments: [
                "bench-bound", "--port", "\(port)", "--data-dir", directory + "-bound", "--broker",
                "mqtt://127.0.0.1:\(brokerPort ?? mqttPort)", "--mqtt-secret-file",
                directory + "/mqtt-secret", "--mqtt-gateway-username", gatewayUsername,
            ] + (database.map { ["--database", $0.url()] } ?? []),
            logPath: directory + "-bound.out")
        do {
            try await waitUntilReady(port: port, process: process, deadline: .now + .seconds(30))
        } catch {
            _ = await process.stop()
            throw error
        }
        runningBound.withLock { $0 = process.pid }
        return (process, port)
    }

    /// Runs `body` with `connections` keep-alive connections to a durable bound started for it
    /// (`startBound`), then closes them and stops the bound. Nil for a gateway the bench did not
    /// start.
    func withBound<T>(
        connections count: Int, brokerPort: Int? = nil, _ body: ([BenchHTTPConnection]) async throws -> T
    ) async throws -> T? {
        guard let (process, port) = try await startBound(brokerPort: brokerPort) else { return nil }
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

    /// Stops the gateways and brokers it started; removes their data unless `keep` (after a
    /// failure, for their logs).
    func stop(keep: Bool = false) async {
        for gateway in gatewayProcesses.reversed() { _ = await gateway.stop() }
        for broker in brokers { await broker.stop() }
        await database?.stop()
        try? await group.shutdownGracefully()
        guard !keep else { return }
        var paths = [directory, directory + ".out", directory + "-bound", directory + "-bound.out"]
        for index in 1..<max(1, gateways) { paths += [directory + "-\(index + 1)", directory + "-\(index + 1).out"] }
        for index in 0..<brokers.count where brokers[index].process != nil {
            paths.append(directory + "-broker\(index)")
        }
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }

    static func close(_ connections: [BenchHTTPConnection]) async {
        for connection in connections { await connection.close() }
    }

    /// `count` keep-alive HTTP connections to the gateways, spread over them in turn (as a
    /// round-robin load balancer would).
    func connections(_ count: Int) async throws -> [BenchHTTPConnection] {
        var connections: [BenchHTTPConnection] = []
        let ports = httpPorts.isEmpty ? [httpPort] : httpPorts
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

    /// One raw publisher on each broker the devices at `endpoints` hold on, by broker port.
    func rawPublishers(for endpoints: [Endpoint], maxInflight: Int = 100) async throws -> [Int: MQTTClient] {
        var publishers: [Int: MQTTClient] = [:]
        do {
            for port in Set(endpoints.map(\.port)) {
                publishers[port] = try await rawPublisher(maxInflight: maxInflight, port: port)
            }
        } catch {
            for publisher in publishers.values { publisher.shutdown() }
            throw error
        }
        return publishers
    }

    /// One QoS 1 publish of `payload` to each endpoint's topic, by the publisher on its broker
    /// (`rawPublishers`), until every broker acknowledged them.
    static func publish(
        _ payload: [UInt8], toEach endpoints: [Endpoint], with publishers: [Int: MQTTClient], timeout: Duration
    ) async throws {
        var publications: [Int: [MQTTPublication]] = [:]  // by broker port
        for endpoint in endpoints {
            guard let publisher = publishers[endpoint.port] else {
                throw BenchError("a device was told a broker port (\(endpoint.port)) the bench has no publisher on")
            }
            publications[endpoint.port, default: []].append(
                try publisher.startPublishing(endpoint.topic, payload: payload))
        }
        for (port, started) in publications {
            guard await publishers[port]?.unacknowledged(started, timeout: timeout).isEmpty == true else {
                throw BenchError("the broker on port \(port) did not acknowledge every raw publish")
            }
        }
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

    /// Waits until the gateways here are idle (together under a tenth of a core over half a
    /// second), at most `limit`: what a phase left them (the presence reports of 100 000
    /// connects, their last-seen writes) is not measured as part of the next. How long it
    /// waited.
    @discardableResult
    func waitUntilGatewaysIdle(limit: Duration = .seconds(60)) async throws -> Duration {
        let used = { self.gatewayPIDs.compactMap(ProcessCPU.used).reduce(Duration.zero, +) }
        var before = used()
        return try await QuietWait.poll(limit: limit) {
            let now = used()
            defer { before = now }
            return now - before < .milliseconds(50)
        }.waited
    }
}
