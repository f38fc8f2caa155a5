import Foundation
import ProcessSupport

/// `topicgate bench`: starts a gateway with its broker, runs each scenario through TopicGate and
/// as raw MQTT against the same broker, and returns the rows.
public struct BenchRunner {
    public let executable: String
    public let options: BenchOptions
    /// A running gateway and broker to measure; nil starts its own.
    public let target: BenchTarget?
    /// Called with each scenario's name as it starts (progress on standard error).
    public let progress: @Sendable (String) -> Void

    public init(
        executable: String, options: BenchOptions, target: BenchTarget? = nil,
        progress: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.executable = executable
        self.options = options
        self.target = target
        self.progress = progress
    }

    public func run() async throws -> [BenchRow] {
        // Held devices are descriptors of the holders and the brokers (which inherit the limit
        // through the gateway); the connections scenario spreads them so that each process stays
        // under it.
        DescriptorLimit.raise()
        var rows: [BenchRow] = []
        if let soak = options.soak {
            rows += try await inWorld { world in
                try await scenario("soak for \(Int(soak.seconds)) s") {
                    try await SoakScenario(world: world, options: options).run(for: soak)
                }
            }
            if options.runsSoakOnly { return rows }
        }
        // Each run on a gateway and broker of its own, so that no run finds another's users,
        // topics or installations.
        var runs: [[BenchRow]] = []
        for repetition in 1...max(1, options.repetitions) {
            if options.repetitions > 1 { progress("run \(repetition) of \(options.repetitions)") }
            runs.append(try await inWorld(scenarios))
        }
        return rows + BenchRow.combined(runs)
    }

    /// Starts a gateway and its broker (or checks the given ones), runs `body` on them and stops
    /// them; on a failure, keeps their output and says where it is.
    private func inWorld(_ body: (BenchWorld) async throws -> [BenchRow]) async throws -> [BenchRow] {
        let world = BenchWorld(
            executable: executable, given: target, postgres: options.postgres,
            postgresSettings: options.postgresSettings, gateways: options.gateways, brokers: options.brokers)
        do {
            progress(
                target != nil
                    ? "checking the given gateway"
                    : world.isFleet
                        ? "starting \(options.gateways) gateways and \(options.brokers) brokers"
                        : "starting the gateway and its broker")
            try await world.start()
            if let database = world.database { progress("its PostgreSQL is at \(database.url())") }
            let rows = try await body(world)
            await world.stop()
            return rows
        } catch {
            await world.stop(keep: true)
            throw BenchError(
                "\(error) (the gateway's output is in \(world.directory).out, the broker's log in "
                    + "\(world.directory)/broker)"
            )
        }
    }

    /// Every scenario the options name, once.
    private func scenarios(_ world: BenchWorld) async throws -> [BenchRow] {
        var rows: [BenchRow] = []
        if options.runs("send") {
            rows += try await scenario("send → device") {
                try await SendToDeviceScenario(world: world, options: options).run()
            }
        }
        if options.runs("fanout") {
            for size in options.fanOutSizes {
                rows += try await scenario("fan-out to \(size) devices") {
                    try await FanOutScenario(world: world, options: options).run(size: size)
                }
            }
        }
        if options.runs("commands") {
            rows += try await scenario("commands") {
                try await CommandScenario(world: world, options: options).run()
            }
        }
        if options.runs("authorization") {
            rows += try await scenario("authorization") {
                try await AuthorizationScenario(world: world, options: options).run()
            }
        }
        if options.runs("reads") {
            rows += try await scenario("reads") {
                try await ReadScenario(world: world, options: options).run()
            }
        }
        if options.runs("signup") {
            rows += try await scenario("sign-up") {
                try await SignUpScenario(world: world, options: options).run()
            }
        }
        if options.runs("queries") {
            rows += try await scenario("user queries over \(options.queryUsers) users") {
                try await QueryScenario(world: world, options: options).run()
            }
        }
        if options.runs("triggers") {
            rows += try await scenario("triggers") {
                try await TriggerScenario(world: world, options: options).run()
            }
        }
        if options.runs("statequeries") && !world.postgres {
            rows += try await scenario("state queries over \(options.stateHistory) states") {
                try await StateQueryScenario(world: world, options: options).run()
            }
        }
        if options.runs("connections") {
            rows += try await scenario("\(options.connections) connections") {
                try await ConnectionScenario(world: world, options: options).run()
            }
        }
        return rows
    }

    /// Runs the scenario `name`, and says so when the machine's host took a share of its CPU
    /// meanwhile (steal, on a virtual machine): TopicGate and its baseline then did not run on
    /// the same machine.
    private func scenario(_ name: String, _ body: () async throws -> [BenchRow]) async throws -> [BenchRow] {
        progress(name)
        let before = MachineCPU.now()
        let rows = try await body()
        if let before, let stolen = MachineCPU.now()?.stolenShare(since: before), stolen >= 0.01 {
            let percent = String(format: "%.1f", stolen * 100)
            progress(
                "the host took \(percent) % of this machine's CPU during \(name) (steal): its ratios depend on when")
        }
        return rows
    }
}
