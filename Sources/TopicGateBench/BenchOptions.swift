/// How much work each scenario does. `standard` takes a few minutes on two cores; `quick`
/// only shows that every scenario runs.
public struct BenchOptions: Sendable {
    public var messages = 20_000
    public var concurrency = 16
    public var fanOutSizes = [100, 1_000]
    public var fanOutRounds = 10
    public var commandRounds = 1_000
    public var decisions = 5_000_000
    public var refusals = 10_000
    public var reads = 50_000
    public var signUps = 5_000
    public var logins = 64
    public var connections = 100_000
    /// Users in the app the user queries search, and queries of each kind.
    public var queryUsers = 100_000
    public var queries = 5_000
    /// States of the one thing the state queries search, and queries of each kind.
    public var stateHistory = 1_000_000
    public var stateQueries = 200
    /// State reports of each kind the triggers scenario sends, and how many it paces for latency.
    public var triggerStates = 5_000
    public var triggerLatencyStates = 2_000
    /// Devices of the connections scenario per holder process and per broker; nil: as many as
    /// the descriptor limit leaves room for, at most 15 000.
    public var devicesPerProcess: Int?
    /// The gateway the bench starts keeps its data in a PostgreSQL server the bench starts too
    /// (durable, PostgreSQL's defaults) instead of the SQLite file.
    public var postgres = false
    /// `name=value` settings the bench's PostgreSQL starts with (each a `-c`, after its own), to
    /// look inside it while it runs: `shared_preload_libraries=pg_stat_statements`.
    public var postgresSettings: [String] = []
    /// Gateways the bench starts: more than one run on one PostgreSQL, its HTTP connections
    /// spread over all of them in turn.
    public var gateways = 1
    /// Brokers the devices are spread over: more than one are Mosquittos with the plugin started
    /// from the embedded broker's configuration, every gateway spreading installations over all.
    public var brokers = 1
    /// How long the soak runs (nil: no soak): sends, subscriptions, commands and revocations
    /// without a pause, reported per `soakInterval`.
    public var soak: Duration?
    /// The requests a second the soak's workers offer together (`SoakPace`); nil: each worker
    /// sends its next request as soon as the last answered (the fleet's capacity).
    public var soakRate: Double?
    /// One row of the soak per interval: a minute, or a fifth of a soak shorter than five minutes.
    public var soakInterval: Duration {
        guard let soak else { return .seconds(60) }
        return soak >= .seconds(300) ? .seconds(60) : soak / 5
    }
    /// Times the scenarios run, one after another on the same gateway and broker (the soak
    /// runs once). With more than one, each row is the run of the median ratio, with the lowest
    /// and highest ratio of all runs beside it.
    public var repetitions = 1
    /// Scenarios to run (all when empty): send, fanout, commands, authorization, reads, signup,
    /// queries, statequeries, triggers, connections, soak (with `soak` set).
    public var only: Set<String> = []

    public init() {}

    public static var standard: BenchOptions { BenchOptions() }

    public static var quick: BenchOptions {
        var options = BenchOptions()
        options.messages = 300
        options.concurrency = 8
        options.fanOutSizes = [20]
        options.fanOutRounds = 2
        options.commandRounds = 10
        options.decisions = 100_000
        options.refusals = 100
        options.reads = 200
        options.signUps = 100
        options.logins = 4
        options.connections = 200
        options.queryUsers = 300
        options.queries = 50
        options.stateHistory = 20_000
        options.stateQueries = 10
        options.triggerStates = 100
        options.triggerLatencyStates = 50
        return options
    }

    func runs(_ scenario: String) -> Bool { only.isEmpty || only.contains(scenario) }

    /// A soak runs alone unless other scenarios are named with it.
    var runsSoakOnly: Bool { soak != nil && only.isEmpty }
}
