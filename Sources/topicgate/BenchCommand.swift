import ArgumentParser
import Foundation
import TopicGateBench

/// `topicgate bench`: what TopicGate costs on this machine, next to the Mosquitto under it.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure TopicGate against raw Mosquitto in the same run.",
        discussion: """
            Starts its own gateway and broker on free loopback ports, unless --broker names a running \
            broker: then it measures the gateway at --server (with the app's credentials and the MQTT \
            secret it shares with the broker; run that gateway with the abuse limits off).
            """)

    @Flag(help: "A small run that only shows every scenario works (seconds, not minutes).") var quick = false
    @Flag(help: "Print JSON instead of a table.") var json = false
    @Flag(help: "Run the gateway it starts on a PostgreSQL server it starts too (initdb; durable settings).")
    var postgres = false
    @Option(help: "Gateways to start (1–8): more than one run on one PostgreSQL, HTTP spread over all of them.")
    var gateways = 1
    @Option(
        help: "Brokers to start (1–8): Mosquittos with the plugin, every gateway spreading devices over all of them.")
    var brokers = 1
    @Option(
        help: ArgumentHelp(
            "Soak for this long (e.g. 10m, 90s, 1h): sends, subscriptions, commands and revocations without a pause, "
                + "with throughput, p99 and memory per minute and open descriptors at the end. Alone unless --only "
                + "names other scenarios.", valueName: "duration"))
    var soak: String?
    @Option(
        help: ArgumentHelp(
            "Requests a second the soak's workers offer together, each request's latency counted from when it was "
                + "due (default: none, each worker sends as soon as its last request answered).",
            valueName: "requests/s"))
    var soakRate: Double?
    @Option(
        name: .customLong("postgres-setting"),
        help: ArgumentHelp(
            "A setting for the PostgreSQL the bench starts (with --postgres or --gateways), as name=value; "
                + "repeatable: --postgres-setting shared_preload_libraries=pg_stat_statements.",
            valueName: "name=value"))
    var postgresSettings: [String] = []
    @Option(
        help: ArgumentHelp(
            "Run the scenarios this many times, each time on a gateway and broker of their own (1–9): each row is "
                + "then the run of the median ratio, with the lowest and highest ratio of all runs beside it."))
    var runs = 1
    @Option(help: "Messages in the send → device scenario.") var messages: Int?
    @Option(help: "Concurrent HTTP requests (keep-alive connections).") var concurrency: Int?
    @Option(help: "Devices held in the connections scenario.") var connections: Int?
    @Option(
        help: ArgumentHelp(
            "Devices per broker and per holder process in the connections scenario (default: what the descriptor "
                + "limit allows, at most 15 000); more devices start more brokers."))
    var devicesPerProcess: Int?
    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp(
            "Only these scenarios: send, fanout, commands, authorization, reads, signup, queries (user queries over "
                + "100 000 users), statequeries (trait state history queries over 1 000 000 states of one thing; "
                + "SQLite only), triggers (state reports on a thing with 100 triggers), connections (which also gives the gateway's memory with that many installations)."
        ))
    var only: [String] = []

    @OptionGroup(title: "A running gateway (with --broker)") var admin: AdminOptions
    @Option(help: "mqtt://host:port of the running broker the gateway at --server uses.") var broker: String?
    @Option(help: "The MQTT secret file the gateway shares with that broker.") var mqttSecretFile: String?
    @Option(help: "The gateway's MQTT account (default topicgate).") var mqttGatewayUsername = "topicgate"
    @Option(help: "The gateway's process ID, to report its memory (same machine only).") var gatewayPID: Int32?
    @Option(help: "The broker's process ID, to report its memory per connection (same machine only).") var brokerPID:
        Int32?

    func run() async throws {
        var options: BenchOptions = quick ? .quick : .standard
        if let messages { options.messages = messages }
        if let concurrency { options.concurrency = max(1, concurrency) }
        if let connections { options.connections = connections }
        if let devicesPerProcess { options.devicesPerProcess = devicesPerProcess }
        options.only = Set(only)
        guard (1...9).contains(runs) else { throw ValidationError("--runs is 1 to 9.") }
        options.repetitions = runs
        guard (1...8).contains(gateways) else { throw ValidationError("--gateways is 1 to 8.") }
        guard (1...8).contains(brokers) else { throw ValidationError("--brokers is 1 to 8.") }
        guard (gateways == 1 && brokers == 1) || broker == nil else {
            throw ValidationError("--gateways and --brokers start their own fleet; they do not go with --broker.")
        }
        options.postgres = postgres
        for setting in postgresSettings {
            guard let equals = setting.firstIndex(of: "="), equals != setting.startIndex else {
                throw ValidationError("--postgres-setting is name=value: \(setting)")
            }
        }
        guard postgresSettings.isEmpty || postgres || gateways > 1 else {
            throw ValidationError("--postgres-setting goes with --postgres or --gateways, which start a PostgreSQL.")
        }
        options.postgresSettings = postgresSettings
        options.gateways = gateways
        options.brokers = brokers
        if let soak {
            guard let span = Self.duration(soak), span >= .seconds(5) else {
                throw ValidationError("--soak is a duration of at least 5 s: 10m, 90s, 1h.")
            }
            options.soak = span
        }
        if let soakRate {
            guard soak != nil, soakRate.isFinite, soakRate > 0 else {
                throw ValidationError("--soak-rate is a number of requests a second above 0, with --soak.")
            }
            options.soakRate = soakRate
        }
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        let runner = BenchRunner(executable: executable, options: options, target: try target()) { step in
            FileHandle.standardError.write(Data("bench: \(step)…\n".utf8))
        }
        let rows = try await runner.run()
        print(json ? try BenchReport.json(rows) : BenchReport.table(rows))
    }

    /// `90s`, `10m`, `1h` (a bare number is seconds).
    static func duration(_ text: String) -> Duration? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600]
        guard let last = text.last else { return nil }
        let (digits, unit) = last.isNumber ? (Substring(text), Int64(1)) : (text.dropLast(), units[last] ?? 0)
        guard unit > 0, let count = Int64(digits), count > 0 else { return nil }
        return .seconds(count * unit)
    }

    /// The running gateway and broker named by the flags, if --broker is given.
    func target() throws -> BenchTarget? {
        guard let broker else { return nil }
        guard let brokerURL = URL(string: broker), brokerURL.scheme == "mqtt", let brokerHost = brokerURL.host else {
            throw ValidationError("--broker is mqtt://host:port.")
        }
        let client = try AdminClient(options: admin)
        guard let httpHost = client.server.host else { throw ValidationError("--server is http://host:port.") }
        guard let secretFile = mqttSecretFile else {
            throw ValidationError("--mqtt-secret-file is needed with --broker (the raw baselines sign with it).")
        }
        let secret = try String(contentsOfFile: secretFile, encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        return BenchTarget(
            httpHost: httpHost, httpPort: client.server.port ?? 80, mqttHost: brokerHost,
            mqttPort: brokerURL.port ?? 1883, mqttSecret: secret, gatewayUsername: mqttGatewayUsername,
            appID: client.appID,
            clientID: client.clientID, clientSecret: client.clientSecret, gatewayPID: gatewayPID, brokerPID: brokerPID)
    }
}
