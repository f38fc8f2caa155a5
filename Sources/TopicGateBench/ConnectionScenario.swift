import Foundation
import NIOHTTP1
import ProcessSupport
import Synchronization
import TopicGateCore

/// connections: devices connecting through the auth plugin (JWT credentials as the gateway
/// issues them) and held, against a second Mosquitto from the same executable with the same
/// settings but no plugin and anonymous access. Connects per second and the broker's memory
/// per held connection.
struct ConnectionScenario {
    let world: BenchWorld
    let options: BenchOptions

    struct Measurement {
        let rate: Double
        /// Nil when the broker does not run on this machine.
        let bytesPerConnection: Double?
    }

    func run() async throws -> [BenchRow] {
        world.resetGatewayPeak()
        let withPlugin = try await hold(
            host: world.mqttHost, port: world.mqttPort, brokerPID: world.brokerPID, authenticated: true)

        guard let mosquitto = MosquittoExecutable.find() else { throw BenchError("mosquitto is not installed") }
        let directory = world.directory + "/noauth"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let port = TCPProbe.freePort()
        let config = """
            listener \(port) 127.0.0.1
            allow_anonymous true
            persistence false
            max_queued_messages 1000
            max_inflight_messages 100
            max_packet_size 262144
            retain_available false
            set_tcp_nodelay true
            log_dest file \(directory)/mosquitto.log
            log_type error
            log_type warning
            log_type notice
            log_type information
            connection_messages true
            log_timestamp true
            """ + (geteuid() == 0 ? "\nuser root\n" : "\n")
        try config.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        let broker = try ChildProcess.spawn(
            executable: mosquitto, arguments: ["-c", directory + "/mosquitto.conf"], logPath: directory + "/stderr.log")
        for _ in 0..<200 where !TCPProbe.accepts(port: port) { try await Task.sleep(for: .milliseconds(25)) }
        let withoutAuth = try await hold(host: "127.0.0.1", port: port, brokerPID: broker.pid, authenticated: false)
        _ = await broker.stop()
        let peak = world.gatewayPeak
        var rows = [
            BenchRow(
                scenario: "connections", metric: "connects/s, \(options.connections) held", unit: "conn/s",
                topicGate: withPlugin.rate, baseline: withoutAuth.rate, baselineName: "same Mosquitto, no auth",
                gatewayPeakBytes: peak)
        ]
        if let bytes = withPlugin.bytesPerConnection, let baseline = withoutAuth.bytesPerConnection {
            rows.append(
                BenchRow(
                    scenario: "connections", metric: "broker memory per connection", unit: "bytes", topicGate: bytes,
                    baseline: baseline, baselineName: "same Mosquitto, no auth", gatewayPeakBytes: peak))
        }
        return rows
    }

    /// Opens `options.connections` connections (64 at a time), holds them all, measures, closes.
    func hold(host: String, port: Int, brokerPID: pid_t?, authenticated: Bool) async throws -> Measurement {
        let before = brokerPID.flatMap(ProcessMemory.resident)
        let devices = Mutex<[BenchDevice]>([])
        let prefix = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(10).lowercased()
        // Credentials are made before the clock starts: signing is the gateway's work, not the broker's.
        let topics = (0..<options.connections).map { "c\(prefix)\($0)" }
        let passwords = authenticated ? topics.map(world.devicePassword) : []
        let began = ContinuousClock.now
        try await concurrently(workers: 64, items: options.connections) { _, index in
            let topic = topics[index]
            let device = BenchDevice()
            try await device.connect(
                group: world.group, host: host, port: port, clientID: topic, username: authenticated ? topic : nil,
                password: authenticated ? passwords[index] : nil)
            devices.withLock { $0.append(device) }
        }
        let elapsed = ContinuousClock.now - began
        try await Task.sleep(for: .milliseconds(500))
        let after = brokerPID.flatMap(ProcessMemory.resident)
        let held = devices.withLock { $0 }
        try await concurrently(workers: 64, items: held.count) { _, index in await held[index].close() }
        return Measurement(
            rate: rate(options.connections, elapsed),
            bytesPerConnection: before.flatMap { before in
                after.map { Double(max(0, $0 - before)) / Double(max(1, options.connections)) }
            })
    }
}
