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
            var rows: [BenchRow] = []
            if let soak = options.soak {
                progress("soak for \(Int(soak.seconds)) s")
                rows += try await SoakScenario(world: world, options: options).run(for: soak)
                if options.runsSoakOnly {
                    await world.stop()
                    return rows
                }
            }
            if options.runs("send") {
                progress("send → device")
                rows += try await SendToDeviceScenario(world: world, options: options).run()
            }
            if options.runs("fanout") {
                for size in options.fanOutSizes {
                    progress("fan-out to \(size) devices")
                    rows += try await FanOutScenario(world: world, options: options).run(size: size)
                }
            }
            if options.runs("commands") {
                progress("commands")
                rows += try await CommandScenario(world: world, options: options).run()
            }
            if options.runs("authorization") {
                progress("authorization")
                rows += try await AuthorizationScenario(world: world, options: options).run()
            }
            if options.runs("reads") {
                progress("reads")
                rows += try await ReadScenario(world: world, options: options).run()
            }
            if options.runs("signup") {
                progress("sign-up")
                rows += try await SignUpScenario(world: world, options: options).run()
            }
            if options.runs("queries") {
                progress("user queries over \(options.queryUsers) users")
                rows += try await QueryScenario(world: world, options: options).run()
            }
            if options.runs("connections") {
                progress("\(options.connections) connections")
                rows += try await ConnectionScenario(world: world, options: options).run()
            }
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
}
