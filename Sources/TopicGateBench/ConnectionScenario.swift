import Foundation
import MQTTBridge
import NIOCore
import NIOHTTP1
import ProcessSupport
import Synchronization
import TopicGateCore

/// connections: N devices, each a pseudo user's MQTT installation subscribed to one app topic,
/// connect through the auth plugin with the credentials the gateway issued them, subscribe to
/// their topics and are held all at once; one send to the topic then reaches every one of them.
/// Against Mosquittos from the same executable with the same settings but no plugin and
/// anonymous access (the connects), and one raw QoS 1 publish to each device's topic, of as many
/// bytes as TopicGate's push (the push).
/// Connects per second, the brokers' memory per held connection, the time until the last device
/// has the push. Before the devices connect, the gateway's resident memory with N installations
/// and N/10 topics in use (each created, subscribed to and sent to by one of the users, every
/// user having read `users/me`), against the target of 200 MiB.
///
/// A process holds no more connections than it may open descriptors (the hard limit, 20 000 on
/// some machines, cannot be raised without privileges), so above `perProcess` devices the bench
/// spreads them over several `topicgate bench-hold` children and several brokers (`BenchFleet`).
/// Each device's socket is bound to one of the loopback source addresses 127.0.R.2, .3, … (R the
/// run), so that more of them connect than one source address has ephemeral ports: a socket
/// bound before it connects takes a port of its source address whatever its destination, so an
/// address serves at most the ephemeral range (28 232 ports here) of devices, on every broker
/// together.
struct ConnectionScenario {
    let world: BenchWorld
    let options: BenchOptions

    /// Source addresses the devices of one run are spread over: 16, or one per 20 000 devices
    /// (at most 253, the addresses 127.0.R.2…254).
    var sourceAddresses: Int { min(253, max(16, (options.connections + 19_999) / 20_000)) }

    /// Devices per holder process and per broker: below the descriptor limit, with room for
    /// the process's own files.
    static var perProcess: Int { max(1_000, min(15_000, DescriptorLimit.current - 2_000)) }

    /// A set of devices held by holder processes.
    struct Held {
        let holders: [HolderProcess]
        let rate: Double
        /// Nil when the brokers do not run on this machine.
        let bytesPerConnection: Double?
        /// The same once each device subscribed to its topic.
        let bytesPerDevice: Double?

        func close() async {
            await withTaskGroup(of: Void.self) { group in
                for holder in holders { group.addTask { await holder.close() } }
            }
        }
    }

    func run() async throws -> [BenchRow] {
        let share = max(1, options.devicesPerProcess ?? Self.perProcess)
        let processes = (options.connections + share - 1) / share
        let fleet = try await BenchFleet.start(main: world, brokers: processes)
        do {
            let rows = try await measure(fleet, processes: processes)
            await fleet.stop()
            return rows
        } catch {
            await fleet.stop()
            throw error
        }
    }

    func measure(_ fleet: BenchFleet, processes: Int) async throws -> [BenchRow] {
        let gateway = fleet.world
        let count = options.connections
        let connections = try await gateway.connections(max(16, options.concurrency))
        let admin = try await gateway.adminToken(connections[0])
        let topic = "\(gateway.api)/topics/everyone\(count)"
        _ = try await gateway.call(connections[0], .PUT, topic, token: admin, expected: 204)
        // The installations are made before the clock starts: they are the gateway's HTTP work,
        // measured by the other scenarios.
        let endpoints = try await installations(count, subscribedTo: topic, gateway: gateway, connections: connections)
        // Closed now: they would sit idle for as long as the devices take to connect (minutes for a
        // million), longer than the gateway keeps an idle connection; the send opens its own.
        await BenchWorld.close(connections)
        // Once what the setup left (its outbox, its settlements, its checkpoint) is done: each
        // measured phase starts on a quiet machine, as the one it is compared with does.
        try await Task.sleep(for: .seconds(3))
        try await MachineCPU.waitUntilQuiet()
        let (resident, setupPeak) = (gateway.gatewayResident, gateway.gatewayPeak)
        let used = Set(endpoints.map(\.port))
        guard used.count == fleet.brokers.count else {
            throw BenchError("the gateway put \(count) devices on \(used.count) of its \(fleet.brokers.count) brokers")
        }

        gateway.resetGatewayPeak()
        let receipts = ReceiptLog()
        let devices = endpoints.enumerated().map { index, endpoint in
            DeviceHolder.Device(
                host: gateway.mqttHost, port: endpoint.port, source: source(index, run: 1, host: gateway.mqttHost),
                clientID: endpoint.topic, username: endpoint.username, password: endpoint.password,
                topic: endpoint.topic)
        }
        // The first sockets of a run cost the kernel new memory (slabs allocated and their pages
        // zeroed: 16 % of the machine's CPU while a million devices connected, against 0.3 % in
        // the run after it, which reuses it). Unmeasured connects without authentication pay
        // that first, so that both measured runs meet the same kernel.
        _ = try await holdWithoutAuth(count, processes: processes)
        let withPlugin = try await hold(
            devices, processes: processes, brokerPIDs: fleet.brokers.map(\.pid), receipts: receipts)
        do {
            // The connects' presence reports handled first: the send is measured alone, as the
            // raw publishes after it are.
            try await gateway.waitUntilGatewaysIdle()
            // And the brokers and holders (still taking in the last connects).
            try await MachineCPU.waitUntilQuiet()
            // The connects' peak and the send's, each on its own rows.
            let connectsPeak = gateway.gatewayPeak
            gateway.resetGatewayPeak()
            let sender = try await gateway.connections(1)
            let began = ContinuousClock.now
            do {
                _ = try await gateway.call(
                    sender[0], .POST, "\(topic)/push/messages", token: admin,
                    contentType: "application/vnd.kii.SendPushMessageRequest+json", body: #"{"data":{"seq":0}}"#,
                    expected: 201)
                await BenchWorld.close(sender)
            } catch {
                await BenchWorld.close(sender)
                throw error
            }
            guard let pushed = await receipts.wait(for: 0, copies: count, timeout: .seconds(600)) else {
                throw BenchError(
                    "the send to \(count) held devices reached \(receipts.receipt(0)?.count ?? 0) of them in 600 s")
            }
            let gatewayTime = pushed.last - began
            let sendPeak = gateway.gatewayPeak
            try await MachineCPU.waitUntilQuiet()
            let rawTime = try await rawPush(to: endpoints, fleet: fleet, receipts: receipts)
            await withPlugin.close()
            let withoutAuth = try await holdWithoutAuth(count, processes: processes)
            return memoryRows(count, resident: resident, peak: setupPeak)
                + rows(
                    count, withPlugin: withPlugin, withoutAuth: withoutAuth, gatewayTime: gatewayTime,
                    rawTime: rawTime, peaks: (connects: connectsPeak, send: sendPeak))
        } catch {
            await withPlugin.close()
            throw error
        }
    }

    /// Topics in use beside `count` installations: one for each tenth of the users.
    static func topicsInUse(_ count: Int) -> Int { count / 10 }

    /// `peak`: the gateway's peak while the installations and topics were made.
    func memoryRows(_ count: Int, resident: Int?, peak: Int?) -> [BenchRow] {
        guard let resident else { return [] }
        return [
            BenchRow(
                scenario: "memory",
                metric: "gateway resident, \(count) installations, \(Self.topicsInUse(count)) topics in use",
                unit: "MiB", topicGate: Double(resident) / 1_048_576, baseline: 200, baselineName: "target",
                gatewayPeakBytes: peak)
        ]
    }

    /// `peaks`: the gateway's peak while the devices connected, and during the send.
    func rows(
        _ count: Int, withPlugin: Held, withoutAuth: Held, gatewayTime: Duration, rawTime: Duration,
        peaks: (connects: Int?, send: Int?)
    ) -> [BenchRow] {
        let peak = peaks.connects
        let noAuth = "same Mosquitto, no auth"
        let rawPublish = "raw: one publish per device topic"
        var rows = [
            BenchRow(
                scenario: "connections", metric: "connects/s, \(count) held", unit: "conn/s",
                topicGate: withPlugin.rate,
                baseline: withoutAuth.rate, baselineName: noAuth, gatewayPeakBytes: peak)
        ]
        if let bytes = withPlugin.bytesPerConnection, let baseline = withoutAuth.bytesPerConnection {
            rows.append(
                BenchRow(
                    scenario: "connections", metric: "broker memory per connection", unit: "bytes", topicGate: bytes,
                    baseline: baseline, baselineName: noAuth, gatewayPeakBytes: peak))
        }
        if let bytes = withPlugin.bytesPerDevice, let baseline = withoutAuth.bytesPerDevice {
            rows.append(
                BenchRow(
                    scenario: "connections", metric: "broker memory per device with its subscription", unit: "bytes",
                    topicGate: bytes, baseline: baseline, baselineName: noAuth, gatewayPeakBytes: peak))
        }
        return rows + [
            BenchRow(
                scenario: "connections", metric: "one send to all \(count): time to the last device", unit: "ms",
                topicGate: gatewayTime.milliseconds, baseline: rawTime.milliseconds, baselineName: rawPublish,
                gatewayPeakBytes: peaks.send),
            BenchRow(
                scenario: "connections", metric: "one send to all \(count): deliveries/s", unit: "msg/s",
                topicGate: rate(count, gatewayTime), baseline: rate(count, rawTime), baselineName: rawPublish,
                gatewayPeakBytes: peaks.send),
        ]
    }

    /// The loopback source address of device `index` in `run`; none for a broker elsewhere.
    func source(_ index: Int, run: Int, host: String) -> SocketAddress? {
        guard host.hasPrefix("127.") else { return nil }
        return try? SocketAddress(ipAddress: "127.0.\(run).\(2 + index % sourceAddresses)", port: 0)
    }

    /// `count` pseudo users, each subscribed to `topic` with one MQTT installation: their endpoints.
    func installations(
        _ count: Int, subscribedTo topic: String, gateway: BenchWorld, connections: [BenchHTTPConnection]
    ) async throws -> [BenchWorld.Endpoint] {
        let endpoints = Mutex<[BenchWorld.Endpoint?]>(Array(repeating: nil, count: count))
        let topics = Self.topicsInUse(count)
        try await concurrently(workers: connections.count, items: count) { worker, index in
            let endpoint = try await gateway.subscribedDevice(
                connections[worker], topic: topic, ownTopic: index < topics)
            endpoints.withLock { $0[index] = endpoint }
        }
        return endpoints.withLock { $0.compactMap { $0 } }
    }

    /// One QoS 1 publish to each device's topic on its broker, from the gateway's account, of as
    /// many bytes as TopicGate's push: the time until the last device has it.
    func rawPush(to endpoints: [BenchWorld.Endpoint], fleet: BenchFleet, receipts: ReceiptLog) async throws
        -> Duration
    {
        let publishers = try await fleet.world.rawPublishers(for: endpoints, maxInflight: 1000)
        defer { for publisher in publishers.values { publisher.shutdown() } }
        let sequence = 1_000_000
        let began = ContinuousClock.now
        // As many bytes as the devices got from TopicGate (Kii's fields: sender, topic, when…).
        let payload = BenchPayload.padded(#"{"seq":\#(sequence)"#, to: receipts.largestPayload)
        try await BenchWorld.publish(payload, toEach: endpoints, with: publishers, timeout: .seconds(600))
        guard let pushed = await receipts.wait(for: sequence, copies: endpoints.count, timeout: .seconds(600)) else {
            throw BenchError("the raw publishes to \(endpoints.count) held devices did not all arrive in 600 s")
        }
        return pushed.last - began
    }

    /// As many devices against as many Mosquittos without the plugin, anonymous; closed again.
    func holdWithoutAuth(_ count: Int, processes: Int) async throws -> Held {
        var brokers: [(port: Int, process: ChildProcess)] = []
        defer { for broker in brokers { broker.process.killNow() } }
        for index in 0..<processes { brokers.append(try await startAnonymousBroker(index)) }
        let prefix = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(10).lowercased()
        let devices = (0..<count).map { index in
            DeviceHolder.Device(
                host: "127.0.0.1", port: brokers[index % brokers.count].port,
                source: source(index, run: 2, host: "127.0.0.1"), clientID: "c\(prefix)\(index)", username: nil,
                password: nil, topic: "c\(prefix)\(index)")
        }
        // What closing the devices held before left the machine (their disconnects) is done first.
        try await MachineCPU.waitUntilQuiet()
        let held = try await hold(
            devices, processes: processes, brokerPIDs: brokers.map(\.process.pid), receipts: ReceiptLog())
        await held.close()
        for broker in brokers { _ = await broker.process.stop() }
        return held
    }

    /// A Mosquitto with the embedded broker's settings, but anonymous and without the plugin.
    func startAnonymousBroker(_ index: Int) async throws -> (port: Int, process: ChildProcess) {
        guard let mosquitto = MosquittoExecutable.find() else { throw BenchError("mosquitto is not installed") }
        let directory = world.directory + "/noauth\(index)"
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
        guard await TCPProbe.waitUntilAccepts(port: port, timeout: .seconds(5), alive: { broker.isRunning }) else {
            _ = await broker.stop()
            throw BenchError("a Mosquitto without authentication did not start; see \(directory)/stderr.log")
        }
        return (port, broker)
    }

    /// Spreads `devices` over `processes` holders, connects them all at once, and measures the
    /// rate and the brokers' memory once all are connected, and again once each subscribed to
    /// its topic. The devices stay connected until `close`.
    func hold(_ devices: [DeviceHolder.Device], processes: Int, brokerPIDs: [pid_t?], receipts: ReceiptLog)
        async throws -> Held
    {
        let share = (devices.count + processes - 1) / max(1, processes)
        var holders: [HolderProcess] = []
        for start in stride(from: 0, to: devices.count, by: max(1, share)) {
            holders.append(
                try HolderProcess(
                    executable: world.executable, devices: Array(devices[start..<min(devices.count, start + share)]),
                    receipts: receipts, logPath: world.directory + "/holder\(holders.count).log"))
        }
        func memory() -> Int? {
            let readings = brokerPIDs.map { $0.flatMap(ProcessMemory.resident) }
            return readings.contains(where: { $0 == nil }) ? nil : readings.reduce(0) { $0 + ($1 ?? 0) }
        }
        func perDevice(_ before: Int?, _ after: Int?) -> Double? {
            guard let before, let after else { return nil }
            return Double(max(0, after - before)) / Double(max(1, devices.count))
        }
        do {
            let before = memory()
            let began = ContinuousClock.now
            for holder in holders { holder.go() }
            var connected = 0
            for holder in holders { connected += try await holder.connected(timeout: .seconds(600)) }
            let elapsed = ContinuousClock.now - began
            guard connected == devices.count else {
                throw BenchError("\(connected) of \(devices.count) devices connected")
            }
            try await Task.sleep(for: .milliseconds(500))
            let afterConnecting = memory()
            for holder in holders { holder.subscribe() }
            for holder in holders { _ = try await holder.held(timeout: .seconds(600)) }
            try await Task.sleep(for: .milliseconds(500))
            return Held(
                holders: holders, rate: rate(devices.count, elapsed),
                bytesPerConnection: perDevice(before, afterConnecting), bytesPerDevice: perDevice(before, memory()))
        } catch {
            await Held(holders: holders, rate: 0, bytesPerConnection: nil, bytesPerDevice: nil).close()
            throw error
        }
    }
}
