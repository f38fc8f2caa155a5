import Foundation
import NIOHTTP1
import Synchronization
import TopicGateCore

/// triggers: state reports (`PUT …/states`, N keep-alive connections) on a thing with 100 STATES
/// triggers, one of which every state satisfies (CONDITION_TRUE, a command to a second thing),
/// against the same reports on a thing without triggers; states that satisfy none of them
/// (evaluation alone); and, paced at half the rate the firing states reached, the time from a
/// state's request to the fired command's arrival at the second thing's device (matched in
/// order: the n-th command with the n-th state). Each measurement reports on a thing of its own
/// with no history yet, since a state's write costs more as its thing's history grows.
struct TriggerScenario {
    let world: BenchWorld
    let options: BenchOptions

    func run() async throws -> [BenchRow] {
        world.resetGatewayPeak()
        let connections = try await world.connections(options.concurrency)
        let owner = try await world.pseudoUser(connections[0])
        let plain = try await world.onboardThing(connections[0], vendorThingID: "bench-plain", owner: owner)
        let actuator = try await world.onboardThing(connections[0], vendorThingID: "bench-actuator", owner: owner)
        let received = Mutex<[ContinuousClock.Instant]>([])
        let device = try await world.connectDevice(actuator.endpoint) { payload, at in
            if BenchPayload.commandID(in: payload) != nil { received.withLock { $0.append(at) } }
        }
        let command =
            #"{"issuer":"user:\#(owner.id)","target":"thing:\#(actuator.id)","actions":[{"turnPower":{"power":true}}]}"#
        /// A new thing with the 100 triggers.
        func sensor(_ name: String) async throws -> (id: String, token: String) {
            let thing = try await world.onboardThing(connections[0], vendorThingID: name, owner: owner)
            let triggers = "/thing-if/apps/\(world.appID)/targets/thing:\(thing.id)/triggers"
            for index in 0..<100 {
                let condition =
                    index == 99
                    ? #"{"type":"range","field":"temperature","lowerLimit":0}"#
                    : #"{"type":"eq","field":"level","value":\#(index)}"#
                _ = try await world.call(
                    connections[0], .POST, triggers, token: owner.token,
                    body:
                        #"{"triggersWhat":"COMMAND","predicate":{"eventSource":"STATES","triggersWhen":"CONDITION_TRUE","condition":\#(condition)},"command":\#(command)}"#,
                    expected: 201)
            }
            return (thing.id, thing.token)
        }
        let states = options.triggerStates
        @Sendable func report(_ thing: (id: String, token: String), _ body: String) async throws -> Double {
            let path = "/thing-if/apps/\(world.appID)/targets/thing:\(thing.id)/states"
            let began = ContinuousClock.now
            try await concurrently(workers: connections.count, items: states) { worker, _ in
                let response = try await connections[worker].send(
                    .PUT, path, token: thing.token, contentType: "application/json", body: body)
                guard response.status == 204 else {
                    throw BenchError(
                        "a state answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
                }
            }
            return rate(states, ContinuousClock.now - began)
        }
        let withoutTriggers = try await report((plain.id, plain.token), #"{"temperature":35,"level":-1}"#)
        let firing = try await report(try await sensor("bench-firing"), #"{"temperature":35,"level":-1}"#)
        let evaluatedOnly = try await report(try await sensor("bench-quiet"), #"{"level":-1}"#)
        guard try await waitUntil(received: states, received) else {
            throw BenchError("the fired commands did not all arrive: \(received.withLock { $0.count }) of \(states)")
        }

        // Paced at half the rate the firing states reached, each from its due time.
        received.withLock { $0 = [] }
        let pace = Duration.seconds(2 / max(firing, 1))
        let paced = options.triggerLatencyStates
        let sent = Mutex<[ContinuousClock.Instant]>(Array(repeating: .now, count: paced))
        let sensor = try await sensor("bench-paced")
        let start = ContinuousClock.now + .milliseconds(50)
        let path = "/thing-if/apps/\(world.appID)/targets/thing:\(sensor.id)/states"
        try await concurrently(workers: connections.count, items: paced) { worker, index in
            let due = start + pace * index
            try await Task.sleep(until: due, clock: .continuous)
            sent.withLock { $0[index] = due }
            _ = try await connections[worker].send(
                .PUT, path, token: sensor.token, contentType: "application/json", body: #"{"temperature":35}"#)
        }
        guard try await waitUntil(received: paced, received) else {
            throw BenchError("the paced fired commands did not all arrive")
        }
        let arrivals = received.withLock { $0 }
        let latencies = zip(sent.withLock { $0 }, arrivals).map { $1 - $0 }
        let statistics = LatencyStatistics(latencies)
        await device.close()
        await BenchWorld.close(connections)
        let peak = world.gatewayPeak
        let baseline = "the same reports on a thing without triggers"
        return [
            BenchRow(
                scenario: "triggers", metric: "state reports/s, 100 triggers, one fires a command on each",
                unit: "req/s", topicGate: firing, baseline: withoutTriggers, baselineName: baseline,
                gatewayPeakBytes: peak),
            BenchRow(
                scenario: "triggers", metric: "state reports/s, 100 triggers evaluated, none fires", unit: "req/s",
                topicGate: evaluatedOnly, baseline: withoutTriggers, baselineName: baseline, gatewayPeakBytes: peak),
            BenchRow(
                scenario: "triggers", metric: "state → fired command at the thing, at half that rate: p50",
                unit: "ms", topicGate: statistics.p50.milliseconds, baseline: nil,
                baselineName: "(a time, no baseline)", gatewayPeakBytes: peak),
            BenchRow(
                scenario: "triggers", metric: "state → fired command at the thing, at half that rate: p99",
                unit: "ms", topicGate: statistics.p99.milliseconds, baseline: nil,
                baselineName: "(a time, no baseline)", gatewayPeakBytes: peak),
        ]
    }

    /// Waits (at most 30 s) until `count` commands arrived.
    private func waitUntil(received count: Int, _ received: borrowing Mutex<[ContinuousClock.Instant]>) async throws
        -> Bool
    {
        let deadline = ContinuousClock.now + .seconds(30)
        while received.withLock({ $0.count }) < count {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }
}
