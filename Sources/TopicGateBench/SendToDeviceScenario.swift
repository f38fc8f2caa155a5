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
        let (gateway, gatewayCPU) = try await CPUSample.perRequest(world, requests: count) {
            try await measure(count: count, receipts: receipts, rate: nil, send)
        }
        receipts.reset()
        // Raw: the gateway's own MQTT account publishing with QoS 1 to the device's topic.
        let publish: @Sendable (Int, Int) async throws -> Void = { _, sequence in
            try await publisher.publish(endpoint.topic, payload: Array(#"{"seq":\#(sequence)}"#.utf8))
        }
        let raw = try await measure(count: count, receipts: receipts, rate: nil, publish)
        receipts.reset()
        // The bound: a minimal handler that writes each message durably and publishes it.
        let bound = try await measureBound(count: count, endpoint: endpoint, receipts: receipts)
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

    /// The same sends against `topicgate bench-bound` (nil when the bench did not start the
    /// gateway): what a gateway that only writes each message durably and publishes it gets.
    func measureBound(count: Int, endpoint: BenchWorld.Endpoint, receipts: ReceiptLog) async throws -> Measurement? {
        let topic = endpoint.topic
        return try await world.withBound(connections: options.concurrency, brokerPort: endpoint.port) { open in
            var (measured, cpu) = try await CPUSample.perRequest(world, requests: count) {
                try await measure(count: count, receipts: receipts, rate: nil) { worker, sequence in
                    let response = try await open[worker].send(
                        .POST, "/messages?topic=\(topic)", body: #"{"seq":\#(sequence)}"#)
                    guard response.status == 201 else { throw BenchError("the bound answered \(response.status)") }
                }
            }
            measured.cpu = cpu
            return measured
        }
    }

    struct Measurement {
        let rate: Double
        let latency: LatencyStatistics
        /// The CPU each request cost the serving side (the bound's runs).
        var cpu: CPUSample?
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
        return Measurement(rate: TopicGateBench.rate(count, last - began), latency: LatencyStatistics(latencies))
    }
}
