import Foundation
import ProcessSupport

/// The brokers of the connections scenario and the gateway the devices install through. One
/// broker: the bench's own gateway and its embedded Mosquitto. More (one Mosquitto process holds
/// no more devices than it may open descriptors, 20 000 on some machines, and uses one core):
/// that broker and more Mosquittos started from its configuration (the same plugin and secret),
/// with a gateway of their own that spreads installations over all of them, as
/// `topicgate serve --broker mqtt://…,mqtt://…` does in production.
final class BenchFleet: Sendable {
    let world: BenchWorld
    let brokers: [BenchBroker]
    private let gateway: ChildProcess?
    /// The folders and files of the fleet's own processes, removed by `stop`.
    private let paths: [String]

    private init(world: BenchWorld, brokers: [BenchBroker], gateway: ChildProcess?, paths: [String] = []) {
        self.world = world
        self.brokers = brokers
        self.gateway = gateway
        self.paths = paths
    }

    static func start(main: BenchWorld, brokers count: Int) async throws -> BenchFleet {
        // A fleet world (`--gateways`, `--brokers`) holds the devices on its own brokers.
        if main.isFleet {
            guard count <= main.brokers.count else {
                throw BenchError(
                    "the connections scenario needs \(count) brokers and the fleet has \(main.brokers.count): "
                        + "raise --brokers or --devices-per-process, or lower --connections")
            }
            return BenchFleet(world: main, brokers: main.brokers, gateway: nil)
        }
        let embedded = BenchBroker(port: main.mqttPort, pid: main.brokerPID, process: nil)
        guard count > 1 else { return BenchFleet(world: main, brokers: [embedded], gateway: nil) }
        guard main.given == nil else {
            throw BenchError(
                "the connections scenario needs \(count) brokers; against a given gateway, lower --connections")
        }
        let template = try String(contentsOfFile: main.directory + "/broker/mosquitto.conf", encoding: .utf8)
        var brokers = [embedded]
        var gateway: ChildProcess?
        do {
            for index in 1..<count {
                brokers.append(
                    try await BenchBroker.start(template: template, directory: main.directory + "-broker\(index)"))
            }
            let list = BenchBroker.list(brokers)
            let httpPort = TCPProbe.freePort()
            let output = main.directory + "-fleet.out"
            let started = try ChildProcess.spawn(
                executable: main.executable,
                arguments: [
                    "serve", "--port", "\(httpPort)", "--broker", list, "--mqtt-secret-file",
                    main.directory + "/mqtt-secret", "--data-dir", main.directory + "-fleet",
                ] + BenchWorld.unlimited,
                logPath: output)
            gateway = started
            // It prints its app's credentials before it listens; `world.start()` then waits for /ready.
            guard await TCPProbe.waitUntilAccepts(port: httpPort, timeout: .seconds(60), alive: { started.isRunning })
            else { throw BenchError("the fleet's gateway did not start; see \(output)") }
            let credentials = try BenchWorld.appCredentials(printedTo: output)
            let world = BenchWorld(
                executable: main.executable,
                given: BenchTarget(
                    httpHost: "127.0.0.1", httpPort: httpPort, mqttHost: "127.0.0.1", mqttPort: main.mqttPort,
                    mqttSecret: try String(contentsOfFile: main.directory + "/mqtt-secret", encoding: .utf8)
                        .trimmingCharacters(in: .whitespacesAndNewlines),
                    gatewayUsername: main.gatewayUsername, appID: credentials.appID, clientID: credentials.clientID,
                    clientSecret: credentials.secret, gatewayPID: started.pid, brokerPID: main.brokerPID))
            try await world.waitUntilReady(port: httpPort, process: started, deadline: .now + .seconds(60))
            try await world.start()
            let paths = [main.directory + "-fleet", output] + (1..<count).map { main.directory + "-broker\($0)" }
            return BenchFleet(world: world, brokers: brokers, gateway: started, paths: paths)
        } catch {
            if let gateway { _ = await gateway.stop() }
            for broker in brokers { await broker.stop() }
            throw error
        }
    }

    func stop() async {
        guard let gateway else { return }
        await world.stop()
        _ = await gateway.stop()
        for broker in brokers { await broker.stop() }
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }
}
