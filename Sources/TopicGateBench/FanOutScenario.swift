import Foundation
import MQTTBridge
import NIOHTTP1
import Synchronization
import TopicGateCore

/// fan-out: one send to an app topic that K devices' users subscribed to, until the last device
/// has it; then one QoS 1 publish to each of the same K private topics, of as many bytes as the
/// devices got from TopicGate (Kii's fields: sender, topic, when, scope, push message ID).
/// Deliveries per second (median of the rounds) and the time to the last device.
struct FanOutScenario {
    let world: BenchWorld
    let options: BenchOptions

    func run(size: Int) async throws -> [BenchRow] {
        world.resetGatewayPeak()
        let connections = try await world.connections(options.concurrency)
        let admin = try await world.adminToken(connections[0])
        let topic = "\(world.api)/topics/fanout\(size)"
        _ = try await world.call(connections[0], .PUT, topic, token: admin, expected: 204)
        let receipts = ReceiptLog()
        let endpoints = Mutex<[BenchWorld.Endpoint]>([])
        let devices = Mutex<[BenchDevice]>([])
        let deliveredSize = Atomic<Int>(0)  // the bytes of a payload TopicGate delivered
        try await concurrently(workers: options.concurrency, items: size) { worker, _ in
            let endpoint = try await world.subscribedDevice(connections[worker], topic: topic)
            let device = try await world.connectDevice(endpoint) { payload, at in
                receipts.record(payload: payload, at: at)
                _ = deliveredSize.max(payload.count, ordering: .relaxed)
            }
            endpoints.withLock { $0.append(endpoint) }
            devices.withLock { $0.append(device) }
        }
        let held = endpoints.withLock { $0 }
        // One raw publisher on each broker the devices hold on.
        let publishers = try await world.rawPublishers(for: held, maxInflight: 1000)
        defer { for publisher in publishers.values { publisher.shutdown() } }

        var gatewayTimes: [Duration] = []
        var rawTimes: [Duration] = []
        for round in 0..<options.fanOutRounds {
            let sequence = round
            let began = ContinuousClock.now
            _ = try await world.call(
                connections[0], .POST, "\(topic)/push/messages", token: admin,
                contentType: "application/vnd.kii.SendPushMessageRequest+json", body: #"{"data":{"seq":\#(sequence)}}"#,
                expected: 201)
            guard let receipt = await receipts.wait(for: sequence, copies: size) else {
                throw BenchError("the fan-out to \(size) devices did not complete")
            }
            gatewayTimes.append(receipt.last - began)

            let rawSequence = 1_000_000 + round
            let payload = BenchPayload.padded(#"{"seq":\#(rawSequence)"#, to: deliveredSize.load(ordering: .relaxed))
            let rawBegan = ContinuousClock.now
            try await BenchWorld.publish(payload, toEach: held, with: publishers, timeout: .seconds(30))
            guard let rawReceipt = await receipts.wait(for: rawSequence, copies: size) else {
                throw BenchError("the raw fan-out to \(size) devices did not complete")
            }
            rawTimes.append(rawReceipt.last - rawBegan)
        }
        let gateway = LatencyStatistics(gatewayTimes).p50
        let raw = LatencyStatistics(rawTimes).p50
        let peak = world.gatewayPeak
        for device in devices.withLock({ $0 }) { await device.close() }
        await BenchWorld.close(connections)
        return [
            BenchRow(
                scenario: "fan-out \(size)", metric: "deliveries/s", unit: "msg/s", topicGate: rate(size, gateway),
                baseline: rate(size, raw), baselineName: "raw: one publish per private topic", gatewayPeakBytes: peak),
            BenchRow(
                scenario: "fan-out \(size)", metric: "time to the last device", unit: "ms",
                topicGate: gateway.milliseconds,
                baseline: raw.milliseconds, baselineName: "raw: one publish per private topic", gatewayPeakBytes: peak),
        ]
    }
}
