import Foundation
import MQTTBridge
import NIOHTTP1
import ProcessSupport
import Synchronization
import TopicGateCore

/// send → device: one HTTP sender with N keep-alive connections, one subscribed device; then
/// the same number of QoS 1 publishes straight to the device's topic. Messages per second until
/// the last arrived, and latency from request start (or publish call) to MQTT receipt, at full
/// speed and paced at half TopicGate's maximum.
struct SendToDeviceScenario {
    let world: BenchWorld
    let options: BenchOptions

    func run() async throws -> [BenchRow] {
        world.resetGatewayPeak()
        let connections = try await world.connections(options.concurrency)
        let user = try await world.pseudoUser(connections[0])
        let topic = "\(world.api)/users/me/topics/bench"
        _ = try await world.call(connections[0], .PUT, topic, token: user.token, expected: 204)
        _ = try await world.call(
            connections[0], .PUT, "\(topic)/push/subscriptions/users/\(user.id)", token: user.token, expected: 204)
        let endpoint = try await world.install(connections[0], token: user.token)
        let receipts = ReceiptLog()
        let device = try await world.connectDevice(endpoint) { payload, at in receipts.record(payload: payload, at: at)
        }
        let publisher = try await world.rawPublisher(port: endpoint.port)
        let count = options.messages

        // Through TopicGate, as fast as N connections go.
        let send: @Sendable (Int, Int) async throws -> Void = { worker, sequence in
            let response = try await connections[worker].send(
                .POST, "\(topic)/push/messages", token: user.token,
                contentType: "application/vnd.kii.SendPushMessageRequest+json", body: #"{"data":{"seq":\#(sequence)}}"#)
            guard response.status == 201 else { throw BenchError("a send answered \(response.status)") }
        }
        // Through TopicGate and through the bound (a minimal handler that writes each message
        // durably and publishes it), taking turns a block of sends each (`BenchTurns`).
        let alternated = try await measureAlternating(count: count, endpoint: endpoint, receipts: receipts, send)
        let (gateway, gatewayCPU, bound) = (alternated.gateway, alternated.gateway.cpu, alternated.bound)
        // Raw: the gateway's own MQTT account publishing with QoS 1 to the device's topic.
        let publish: @Sendable (Int, Int) async throws -> Void = { _, sequence in
            try await publisher.publish(endpoint.topic, payload: Array(#"{"seq":\#(sequence)}"#.utf8))
        }
        let raw = try await measure(count: count, receipts: receipts, rate: nil, publish)
        receipts.reset()

        // Paced at half TopicGate's maximum, for about three seconds, both ways.
        let pace = gateway.rate / 2
        let pacedCount = max(50, min(count, Int(pace * 3)))
        let pacedGateway = try await measure(count: pacedCount, receipts: receipts, rate: pace, send)
        receipts.reset()
        let pacedRaw = try await measure(count: pacedCount, receipts: receipts, rate: pace, publish)
        let peak = world.gatewayPeak
        publisher.shutdown()
        await device.close()
        await BenchWorld.close(connections)

        func row(_ metric: String, _ unit: String, _ tg: Double, _ base: Double) -> BenchRow {
            BenchRow(
                scenario: "send → device", metric: metric, unit: unit, topicGate: tg, baseline: base,
                baselineName: "raw QoS 1 publish", gatewayPeakBytes: peak)
        }
        var boundRows = CPUSample.rows(
            scenario: "send → device", what: "send", gateway: gatewayCPU, bound: bound?.cpu, onPostgres: world.postgres,
            peak: peak)
        if let bound {
            boundRows.append(
                BenchRow(
                    scenario: "send → device", metric: "messages/s against the durable bound", unit: "msg/s",
                    topicGate: gateway.rate, baseline: bound.rate,
                    baselineName: "bound: a minimal handler's durable write + QoS 1 publish", gatewayPeakBytes: peak))
            boundRows.append(
                BenchRow(
                    scenario: "send → device", metric: "p50 at full speed against the durable bound", unit: "ms",
                    topicGate: gateway.latency.p50.milliseconds, baseline: bound.latency.p50.milliseconds,
                    baselineName: "bound: a minimal handler's durable write + QoS 1 publish", gatewayPeakBytes: peak))
        }
        return [
            row("messages/s (\(options.concurrency) concurrent)", "msg/s", gateway.rate, raw.rate),
            row("p50 at full speed", "ms", gateway.latency.p50.milliseconds, raw.latency.p50.milliseconds),
            row("p99 at full speed", "ms", gateway.latency.p99.milliseconds, raw.latency.p99.milliseconds),
            row(
                "p50 at \(Int(pace)) msg/s (half max)", "ms", pacedGateway.latency.p50.milliseconds,
                pacedRaw.latency.p50.milliseconds),
            row(
                "p99 at \(Int(pace)) msg/s (half max)", "ms", pacedGateway.latency.p99.milliseconds,
                pacedRaw.latency.p99.milliseconds),
            row(
                "p999 at \(Int(pace)) msg/s (half max)", "ms", pacedGateway.latency.p999.milliseconds,
                pacedRaw.latency.p999.milliseconds),
        ] + boundRows
    }

    /// `count` sends through TopicGate (`send`) and as many against `topicgate bench-bound`
    /// (nil when the bench did not start the gateway: what a gateway that only writes each
    /// message durably and publishes it gets), in turns of a block each; each side's blocks
    /// together, with the CPU each of its requests cost.
    func measureAlternating(
        count: Int, endpoint: BenchWorld.Endpoint, receipts: ReceiptLog,
        _ send: @escaping @Sendable (Int, Int) async throws -> Void
    ) async throws -> (gateway: Measurement, bound: Measurement?) {
        let topic = endpoint.topic
        func turns(_ open: [BenchHTTPConnection]?) async throws -> (gateway: Measurement, bound: Measurement?) {
            var gateway: [Measurement] = []
            var bound: [Measurement] = []
            let blocks = BenchTurns.count(count, least: 100, alternating: open != nil)
            for block in 0..<blocks {
                let share = BenchTurns.share(of: count, turn: block, of: blocks)
                var (measured, used) = try await CPUSample.used(world) {
                    try await measure(count: share, receipts: receipts, rate: nil, send)
                }
                measured.used = used
                gateway.append(measured)
                receipts.reset()
                guard let open else { continue }
                (measured, used) = try await CPUSample.used(world) {
                    try await measure(count: share, receipts: receipts, rate: nil) { worker, sequence in
                        let response = try await open[worker].send(
                            .POST, "/messages?topic=\(topic)", body: #"{"seq":\#(sequence)}"#)
                        guard response.status == 201 else { throw BenchError("the bound answered \(response.status)") }
                    }
                }
                measured.used = used
                bound.append(measured)
                receipts.reset()
            }
            return (Measurement(combining: gateway), bound.isEmpty ? nil : Measurement(combining: bound))
        }
        if let both = try await world.withBound(
            connections: options.concurrency, brokerPort: endpoint.port, { try await turns($0) })
        {
            return both
        }
        return try await turns(nil)
    }

    struct Measurement {
        let count: Int
        let elapsed: Duration
        let latencies: [Duration]
        /// What the serving side used meanwhile (nil when it was not measured).
        var used: CPUSample?

        var rate: Double { TopicGateBench.rate(count, elapsed) }
        var latency: LatencyStatistics { LatencyStatistics(latencies) }
        /// The CPU each request cost the serving side.
        var cpu: CPUSample? { used?.perRequest(since: CPUSample(), requests: count) }

        init(count: Int, elapsed: Duration, latencies: [Duration], used: CPUSample? = nil) {
            self.count = count
            self.elapsed = elapsed
            self.latencies = latencies
            self.used = used
        }

        /// Several blocks of the same sends as one: their counts, times and CPU added up.
        init(combining blocks: [Measurement]) {
            count = blocks.reduce(0) { $0 + $1.count }
            elapsed = blocks.reduce(.zero) { $0 + $1.elapsed }
            latencies = blocks.flatMap(\.latencies)
            used = CPUSample.total(blocks.map(\.used))
        }
    }

    /// Sends `count` messages with `options.concurrency` workers (at `rate` per second when
    /// given) and waits for all to arrive.
    func measure(
        count: Int, receipts: ReceiptLog, rate pace: Double?,
        _ send: @escaping @Sendable (Int, Int) async throws -> Void
    ) async throws -> Measurement {
        let starts = Mutex([ContinuousClock.Instant?](repeating: nil, count: count))
        let began = ContinuousClock.now
        try await concurrently(workers: options.concurrency, items: count) { worker, sequence in
            if let pace {
                let due = began + .nanoseconds(Int64(Double(sequence) / pace * 1e9))
                if due > ContinuousClock.now { try await Task.sleep(until: due, clock: .continuous) }
            }
            let start = ContinuousClock.now
            starts.withLock { $0[sequence] = start }
            try await send(worker, sequence)
        }
        guard await receipts.wait(forTotal: count) else {
            throw BenchError("only \(receipts.count) of \(count) messages reached the device")
        }
        let started = starts.withLock { $0 }
        var latencies: [Duration] = []
        var last = began
        for sequence in 0..<count {
            guard let receipt = receipts.receipt(sequence), let start = started[sequence] else { continue }
            latencies.append(receipt.first - start)
            last = max(last, receipt.last)
        }
        return Measurement(count: count, elapsed: last - began, latencies: latencies)
    }
}
