import Foundation
import NIOHTTP1

/// soak: `--soak 10m` keeps every kind of write going without a pause, on one gateway or a
/// fleet, and shows whether anything grows with time. Each of `concurrency` workers is a pseudo
/// user with an MQTT device and a thing of its own (both connected and subscribed); round after
/// round it sends to its own topic, unsubscribes and subscribes again, issues a command to its
/// thing and answers it (the result is pushed to the user's device), and grants and revokes
/// another worker's right to send to its topic. Each worker sends its next request as soon as the
/// last answered, or, with `--soak-rate`, when `SoakPace` has it due.
///
/// Per interval (a minute; a fifth of a shorter soak): requests per second, p99 of a request,
/// and the gateways' peak resident memory, each against the first interval's; for each kind of
/// request, its highest p99 after the first interval against its own in the first; at the end the
/// gateways' open descriptors against those after the first interval, the requests that failed,
/// the distinct pushes the devices received against those the accepted requests owed them, and
/// the copies of pushes a device had already (delivery is at least once).
struct SoakScenario {
    let world: BenchWorld
    let options: BenchOptions

    /// One worker's user, device and thing.
    struct Participant: Sendable {
        let userID: String
        let token: String
        let topic: String
        let thingID: String
        let thingToken: String
    }

    func run(for span: Duration) async throws -> [BenchRow] {
        let interval = options.soakInterval
        let count = max(1, Int((span / interval).rounded(.up)))
        let connections = try await world.connections(options.concurrency)
        let ledger = SoakLedger(intervals: count)
        var devices: [BenchDevice] = []
        var participants: [Participant] = []
        for (index, connection) in connections.enumerated() {
            let (participant, owned) = try await join(connection, index: index, ledger: ledger)
            participants.append(participant)
            devices += owned
        }
        let everyone = participants
        let began = ContinuousClock.now
        let deadline = began + span
        let sampler = Task { await sample(ledger, count: count, every: interval, from: began) }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (worker, connection) in connections.enumerated() {
                    group.addTask {
                        var round = 0
                        var pace = SoakPace(
                            rate: options.soakRate, worker: worker, workers: connections.count, began: began)
                        while ContinuousClock.now < deadline {
                            try await play(
                                round, as: everyone[worker], neighbour: everyone[(worker + 1) % everyone.count],
                                on: connection, pace: &pace, ledger: ledger, since: began)
                            round += 1
                        }
                    }
                }
                try await group.waitForAll()
            }
        } catch {
            sampler.cancel()
            for device in devices { await device.close() }
            await BenchWorld.close(connections)
            throw error
        }
        await sampler.value
        // The pushes still on their way.
        let drainUntil = ContinuousClock.now + .seconds(30)
        while ledger.delivered < ledger.owed, ContinuousClock.now < drainUntil {
            try await Task.sleep(for: .milliseconds(100))
        }
        let descriptorsAtEnd = openDescriptors()
        for device in devices { await device.close() }
        await BenchWorld.close(connections)
        return rows(
            ledger.intervals, interval: interval, descriptorsAtEnd: descriptorsAtEnd, delivered: ledger.delivered,
            duplicates: ledger.duplicates, owed: ledger.owed)
    }

    /// A worker's pseudo user with its topic (subscribed), its device and its thing, both connected.
    func join(_ connection: BenchHTTPConnection, index: Int, ledger: SoakLedger) async throws
        -> (Participant, [BenchDevice])
    {
        let user = try await world.pseudoUser(connection)
        let topic = "\(world.api)/users/\(user.id)/topics/soak"
        _ = try await world.call(connection, .PUT, topic, token: user.token, expected: 204)
        _ = try await world.call(
            connection, .PUT, "\(topic)/push/subscriptions/users/\(user.id)", token: user.token, expected: 204)
        let phone = try await world.connectDevice(try await world.install(connection, token: user.token)) {
            payload, _ in ledger.pushArrived(device: 2 * index, payload: payload)
        }
        let thing = try await world.onboardThing(
            connection, vendorThingID: "soak-\(index)-\(UUID().uuidString.prefix(8))", owner: user)
        let thingDevice = try await world.connectDevice(thing.endpoint) { payload, _ in
            ledger.pushArrived(device: 2 * index + 1, payload: payload)
        }
        return (
            Participant(userID: user.id, token: user.token, topic: topic, thingID: thing.id, thingToken: thing.token),
            [phone, thingDevice]
        )
    }

    /// One round of a worker: a send, an unsubscribe and a subscribe, a command and its result,
    /// a grant and its revocation, each request when `pace` has it due. Each request's latency
    /// (from when it was due) and whether it answered as it should go to `ledger`, in the interval
    /// since `began` it ended in, with the pushes an accepted one owes the devices.
    func play(
        _ round: Int, as me: Participant, neighbour: Participant, on connection: BenchHTTPConnection,
        pace: inout SoakPace, ledger: SoakLedger, since began: ContinuousClock.Instant
    ) async throws {
        func request(
            _ kind: String, _ method: HTTPMethod, _ path: String, token: String,
            contentType: String = "application/json", body: String? = nil, expected: Int, pushes: Int = 0
        ) async throws -> [UInt8] {
            let now = ContinuousClock.now
            let started = pace.nextDue(now: now)
            if started > now { try await Task.sleep(until: started, clock: .continuous) }
            let response = try await connection.send(method, path, token: token, contentType: contentType, body: body)
            let succeeded = response.status == expected
            if succeeded { ledger.owe(pushes) }
            let ended = ContinuousClock.now
            ledger.record(
                ended - started, kind: kind, succeeded: succeeded, in: Int((ended - began) / options.soakInterval))
            return response.body
        }
        _ = try await request(
            "send", .POST, "\(me.topic)/push/messages", token: me.token,
            contentType: "application/vnd.kii.SendPushMessageRequest+json", body: #"{"data":{"round":\#(round)}}"#,
            expected: 201, pushes: 1)
        let subscription = "\(me.topic)/push/subscriptions/users/\(me.userID)"
        _ = try await request("unsubscribe", .DELETE, subscription, token: me.token, expected: 204)
        _ = try await request("subscribe", .PUT, subscription, token: me.token, expected: 204)
        let target = "/thing-if/apps/\(world.appID)/targets/thing:\(me.thingID)"
        let created = try await request(
            "command", .POST, "\(target)/commands", token: me.token,
            contentType: "application/vnd.kii.CommandCreationRequest+json",
            body: #"{"actions":[{"Lamp":[{"turnPower":true}]}],"issuer":"user:\#(me.userID)"}"#, expected: 201,
            pushes: 1)
        if let id = BenchPayload.commandID(in: created) {
            _ = try await request(
                "command result", .PUT, "\(target)/commands/\(id)/action-results", token: me.thingToken,
                contentType: "application/vnd.kii.CommandResultsUpdateRequest+json",
                body: #"{"actionResults":[{"Lamp":[{"turnPower":{"succeeded":true}}]}]}"#, expected: 204, pushes: 1)
        }
        let right = "\(me.topic)/acl/SEND_MESSAGE_TO_TOPIC/UserID:\(neighbour.userID)"
        _ = try await request("grant", .PUT, right, token: me.token, expected: 204)
        _ = try await request("revoke", .DELETE, right, token: me.token, expected: 204)
    }

    /// At the end of each interval: the gateways' peak resident memory in it (the peak starts
    /// again) and their open descriptors.
    func sample(_ ledger: SoakLedger, count: Int, every interval: Duration, from began: ContinuousClock.Instant) async {
        let gateways = world.gatewayPIDs
        for pid in gateways { ProcessMemory.resetPeak(pid) }
        var cpu = MachineCPU.now()
        for index in 0..<count {
            try? await Task.sleep(until: began + interval * (index + 1), clock: .continuous)
            let peaks = gateways.compactMap(ProcessMemory.peak)
            for pid in gateways { ProcessMemory.resetPeak(pid) }
            let descriptors = openDescriptors()
            let cpuAtEnd = MachineCPU.now()
            var stolen: Double?
            if let cpu, let cpuAtEnd { stolen = cpuAtEnd.stolenShare(since: cpu) }
            ledger.sample(
                index, peakBytes: peaks.count == gateways.count && !peaks.isEmpty ? peaks.reduce(0, +) : nil,
                descriptors: descriptors, stolen: stolen)
            cpu = cpuAtEnd
        }
    }

    /// The gateways' open descriptors (when they run here).
    func openDescriptors() -> Int? {
        let gateways = world.gatewayPIDs
        let counts = gateways.compactMap {
            try? FileManager.default.contentsOfDirectory(atPath: "/proc/\($0)/fd").count
        }
        return counts.count == gateways.count && !counts.isEmpty ? counts.reduce(0, +) : nil
    }

    func rows(
        _ intervals: [SoakLedger.Interval], interval: Duration, descriptorsAtEnd: Int?, delivered: Int, duplicates: Int,
        owed: Int
    ) -> [BenchRow] {
        let first = intervals[0]
        let gatewaysSaid = world.gatewayPIDs.count > 1 ? "the \(world.gatewayPIDs.count) gateways'" : "gateway"
        func label(_ index: Int) -> String {
            func time(_ span: Duration) -> String {
                let seconds = Int(span.seconds.rounded())
                return String(format: "%d:%02d", seconds / 60, seconds % 60)
            }
            return "\(time(interval * index))–\(time(interval * (index + 1)))"
        }
        func row(_ metric: String, _ unit: String, _ value: Double, _ baseline: Double?, peak: Int? = nil) -> BenchRow {
            BenchRow(
                scenario: "soak", metric: metric, unit: unit, topicGate: value, baseline: baseline,
                baselineName: "the first interval", gatewayPeakBytes: peak)
        }
        let firstRate = Double(first.latencies.count) / interval.seconds
        let firstP99 = LatencyStatistics(first.latencies).p99.milliseconds
        var rows: [BenchRow] = []
        if let rate = options.soakRate {
            rows.append(
                BenchRow(
                    scenario: "soak", metric: "requests offered per second (--soak-rate)", unit: "req/s",
                    topicGate: rate, baseline: nil, baselineName: "(the pace asked for, no baseline)",
                    gatewayPeakBytes: nil))
        }
        for (index, measured) in intervals.enumerated() {
            let p99 = LatencyStatistics(measured.latencies).p99.milliseconds
            rows.append(
                row(
                    "requests/s, \(label(index))", "req/s", Double(measured.latencies.count) / interval.seconds,
                    firstRate))
            rows.append(row("p99, \(label(index))", "ms", p99, firstP99))
            if let bytes = measured.peakBytes {
                rows.append(
                    row(
                        "\(gatewaysSaid) peak RSS, \(label(index))", "MiB", Double(bytes) / 1_048_576,
                        first.peakBytes.map { Double($0) / 1_048_576 }, peak: bytes))
            }
            if let stolen = measured.stolen {
                rows.append(
                    BenchRow(
                        scenario: "soak", metric: "CPU the host took (steal), \(label(index))", unit: "%",
                        topicGate: stolen * 100, baseline: nil,
                        baselineName: "(the machine's own, no baseline)",
                        gatewayPeakBytes: nil))
            }
        }
        // Which kind of request a later p99 comes from: each kind's highest p99 after the first
        // interval, against its own in the first.
        for (kind, firstP99, worst, at) in SoakLedger.worstLaterP99(intervals) {
            rows.append(
                row(
                    "p99 of \(kind), highest after the first (\(label(at)))", "ms", worst.milliseconds,
                    firstP99.milliseconds))
        }
        if let end = descriptorsAtEnd, let start = first.descriptors {
            rows.append(
                row("\(gatewaysSaid) open descriptors at the end", "fds", Double(end), Double(start)))
        }
        let failures = intervals.reduce(0) { $0 + $1.failures }
        let requests = intervals.reduce(0) { $0 + $1.latencies.count }
        rows.append(
            BenchRow(
                scenario: "soak", metric: "requests answered as expected", unit: "req",
                topicGate: Double(requests - failures), baseline: Double(requests), baselineName: "requests made",
                gatewayPeakBytes: nil))
        rows.append(
            BenchRow(
                scenario: "soak", metric: "pushes the devices received", unit: "msg", topicGate: Double(delivered),
                baseline: Double(owed), baselineName: "pushes the accepted requests owe", gatewayPeakBytes: nil))
        rows.append(
            BenchRow(
                scenario: "soak", metric: "pushes received again (at least once)", unit: "msg",
                topicGate: Double(duplicates), baseline: Double(owed), baselineName: "pushes the accepted requests owe",
                gatewayPeakBytes: nil))
        return rows
    }
}
