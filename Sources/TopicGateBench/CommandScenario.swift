import Foundation
import MQTTBridge
import NIOHTTP1
import ProcessSupport
import Synchronization
import TopicGateCore

/// commands: an owner's command → the thing receives it over MQTT → the thing reports action
/// results over HTTP → the owner's phone receives the `commandID` push; one round trip at a
/// time. Raw: the same two hops as QoS 1 publishes (to the thing's topic, then, on receipt, to
/// the phone's). The durable bound: the same two hops through `topicgate bench-bound`, each an
/// HTTP request that writes its message durably before publishing it. The baselines' payloads
/// are as large as TopicGate's (Kii's command and result pushes), padded.
struct CommandScenario {
    let world: BenchWorld
    let options: BenchOptions

    func run() async throws -> [BenchRow] {
        world.resetGatewayPeak()
        let connections = try await world.connections(2)
        let owner = try await world.pseudoUser(connections[0])
        let phoneEndpoint = try await world.install(connections[0], token: owner.token)
        let onboarded = try await world.onboardThing(connections[0], vendorThingID: "bench-lamp", owner: owner)
        let (thingID, thingToken, thingEndpoint) = (onboarded.id, onboarded.token, onboarded.endpoint)

        let (phoneReceipts, phoneInbox) = AsyncStream.makeStream(of: String.self)
        let (thingReceipts, thingInbox) = AsyncStream.makeStream(of: String.self)
        // The largest payload each device got, TopicGate's first: the baselines' size.
        let phonePayloadSize = Atomic<Int>(0)
        let thingPayloadSize = Atomic<Int>(0)
        let phone = try await world.connectDevice(phoneEndpoint) { payload, _ in
            _ = phonePayloadSize.max(payload.count, ordering: .relaxed)
            if let id = BenchPayload.commandID(in: payload) { phoneInbox.yield(id) }
        }
        let thing = try await world.connectDevice(thingEndpoint) { payload, _ in
            _ = thingPayloadSize.max(payload.count, ordering: .relaxed)
            if let id = BenchPayload.commandID(in: payload) { thingInbox.yield(id) }
        }
        func toThing(_ id: String) -> [UInt8] {
            BenchPayload.padded(#"{"commandID":"\#(id)","actions":[]"#, to: thingPayloadSize.load(ordering: .relaxed))
        }
        func toPhone(_ id: String) -> [UInt8] {
            BenchPayload.padded(#"{"commandID":"\#(id)""#, to: phonePayloadSize.load(ordering: .relaxed))
        }
        // Raw: each hop published on the broker its device holds on (a fleet may spread them).
        let publishers = try await world.rawPublishers(for: [phoneEndpoint, thingEndpoint])
        guard let toPhonePublisher = publishers[phoneEndpoint.port],
            let toThingPublisher = publishers[thingEndpoint.port]
        else { throw BenchError("no raw publisher on the devices' brokers") }
        /// Who answers the thing's receipts: 0 TopicGate (results over HTTP), 1 raw (a publish to
        /// the phone), 2 the bound (a durable publish to the phone).
        let mode = Atomic<Int>(0)
        // The bound publishes on one broker: its rows need both devices there.
        let bound =
            phoneEndpoint.port == thingEndpoint.port ? try await world.startBound(brokerPort: thingEndpoint.port) : nil
        var boundConnections: [BenchHTTPConnection] = []
        if let bound {
            for _ in 0..<2 {
                boundConnections.append(try await BenchHTTPConnection.open(group: world.group, port: bound.port))
            }
        }
        let boundLinks = boundConnections
        let base = "/thing-if/apps/\(world.appID)/targets/thing:\(thingID)"
        // The thing: answers each command with results (TopicGate) or relays it to the phone (raw).
        let responder = Task {
            for await id in thingReceipts {
                switch mode.load(ordering: .relaxed) {
                case 1:
                    try? await toPhonePublisher.publish(phoneEndpoint.topic, payload: toPhone(id))
                case 2:
                    _ = try? await boundLinks[1].send(
                        .POST, "/messages?topic=\(phoneEndpoint.topic)",
                        body: String(decoding: toPhone(id), as: UTF8.self))
                default:
                    _ = try? await world.call(
                        connections[1], .PUT, "\(base)/commands/\(id)/action-results", token: thingToken,
                        contentType: "application/vnd.kii.CommandResultsUpdateRequest+json",
                        body: #"{"actionResults":[{"Lamp":[{"turnPower":{"succeeded":true}}]}]}"#, expected: 204)
                }
            }
        }
        var phoneIterator = phoneReceipts.makeAsyncIterator()

        // TopicGate and the bound take turns (`BenchTurns`), a block of round trips each.
        let rounds = options.commandRounds
        let blocks = BenchTurns.count(rounds, least: 10, alternating: bound != nil)
        var gatewayTrips: [Duration] = []
        var boundTrips: [Duration] = []
        var gatewayElapsed = Duration.zero
        var boundElapsed = Duration.zero
        var gatewayUsed: [CPUSample?] = []
        var boundUsed: [CPUSample?] = []
        for block in 0..<blocks {
            let share = BenchTurns.share(of: rounds, turn: block, of: blocks)
            mode.store(0, ordering: .relaxed)
            let (elapsed, used) = try await CPUSample.used(world) {
                let began = ContinuousClock.now
                for _ in 0..<share {
                    let started = ContinuousClock.now
                    let created = try await world.call(
                        connections[0], .POST, "\(base)/commands", token: owner.token,
                        contentType: "application/vnd.kii.CommandCreationRequest+json",
                        body: #"{"actions":[{"Lamp":[{"turnPower":true}]}],"issuer":"user:\#(owner.id)"}"#,
                        expected: 201)
                    let id = created["commandID"]?.stringValue ?? ""
                    while let received = await phoneIterator.next(), received != id {}
                    gatewayTrips.append(ContinuousClock.now - started)
                }
                return ContinuousClock.now - began
            }
            gatewayElapsed += elapsed
            gatewayUsed.append(used)
            guard bound != nil else { continue }
            mode.store(2, ordering: .relaxed)
            let (boundBlock, boundBlockUsed) = try await CPUSample.used(world) {
                let began = ContinuousClock.now
                for round in 0..<share {
                    let id = "bound\(block)-\(round)"
                    let started = ContinuousClock.now
                    let response = try await boundLinks[0].send(
                        .POST, "/messages?topic=\(thingEndpoint.topic)",
                        body: String(decoding: toThing(id), as: UTF8.self))
                    guard response.status == 201 else { throw BenchError("the bound answered \(response.status)") }
                    while let received = await phoneIterator.next(), received != id {}
                    boundTrips.append(ContinuousClock.now - started)
                }
                return ContinuousClock.now - began
            }
            boundElapsed += boundBlock
            boundUsed.append(boundBlockUsed)
        }
        let gatewayCPU = CPUSample.total(gatewayUsed)?.perRequest(since: CPUSample(), requests: rounds)
        let boundCPU =
            boundUsed.isEmpty ? nil : CPUSample.total(boundUsed)?.perRequest(since: CPUSample(), requests: rounds)

        mode.store(1, ordering: .relaxed)
        var rawTrips: [Duration] = []
        let rawBegan = ContinuousClock.now
        for round in 0..<options.commandRounds {
            let id = "raw\(round)"
            let started = ContinuousClock.now
            try await toThingPublisher.publish(thingEndpoint.topic, payload: toThing(id))
            while let received = await phoneIterator.next(), received != id {}
            rawTrips.append(ContinuousClock.now - started)
        }
        let rawElapsed = ContinuousClock.now - rawBegan
        let peak = world.gatewayPeak
        responder.cancel()
        thingInbox.finish()
        phoneInbox.finish()
        for publisher in publishers.values { publisher.shutdown() }
        await BenchWorld.close(boundConnections)
        if let bound { _ = await bound.process.stop() }
        await phone.close()
        await thing.close()
        await BenchWorld.close(connections)
        let gateway = LatencyStatistics(gatewayTrips)
        let rawStatistics = LatencyStatistics(rawTrips)
        func row(_ metric: String, _ unit: String, _ tg: Double, _ base: Double) -> BenchRow {
            BenchRow(
                scenario: "commands", metric: metric, unit: unit, topicGate: tg, baseline: base,
                baselineName: "raw: two QoS 1 hops", gatewayPeakBytes: peak)
        }
        var boundRows: [BenchRow] = []
        if bound != nil {
            let boundStatistics = LatencyStatistics(boundTrips)
            func boundRow(_ metric: String, _ unit: String, _ tg: Double, _ base: Double) -> BenchRow {
                BenchRow(
                    scenario: "commands", metric: metric, unit: unit, topicGate: tg, baseline: base,
                    baselineName: "bound: two durable publishes through a minimal handler", gatewayPeakBytes: peak)
            }
            boundRows = [
                boundRow(
                    "round trips/s against the durable bound", "trips/s", rate(options.commandRounds, gatewayElapsed),
                    rate(options.commandRounds, boundElapsed)),
                boundRow(
                    "round trip p50 against the durable bound", "ms", gateway.p50.milliseconds,
                    boundStatistics.p50.milliseconds),
            ]
        }
        return [
            row(
                "round trips/s (one at a time)", "trips/s", rate(options.commandRounds, gatewayElapsed),
                rate(options.commandRounds, rawElapsed)),
            row("round trip p50", "ms", gateway.p50.milliseconds, rawStatistics.p50.milliseconds),
            row("round trip p99", "ms", gateway.p99.milliseconds, rawStatistics.p99.milliseconds),
        ] + boundRows
            + CPUSample.rows(
                scenario: "commands", what: "round trip", gateway: gatewayCPU, bound: boundCPU,
                onPostgres: world.postgres, peak: peak)
    }
}
