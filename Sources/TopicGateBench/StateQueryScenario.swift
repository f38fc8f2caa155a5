import Foundation
import NIOHTTP1
import TopicGateCore
import TopicGateStore

/// statequeries: Kii's trait state history query over one thing with `options.stateHistory`
/// states of one alias (one every 100 ms), written into the gateway's SQLite file beforehand (an
/// HTTP report a state at a time would take longer than the rest of the bench): the median time of
/// a page of 100 from the oldest, a page after a key in the middle of the history, a page of a
/// range clause that one state in ten matches, and a grouped query with an aggregation over an
/// hour, each as the owner asks. On PostgreSQL it does not run (the states are written through
/// the SQLite file).
struct StateQueryScenario {
    let world: BenchWorld
    let options: BenchOptions

    func run() async throws -> [BenchRow] {
        guard !world.postgres else { return [] }
        let setUp = try await world.connections(1)
        let owner = try await world.pseudoUser(setUp[0])
        let onboarded = try await world.call(
            setUp[0], .POST, "/thing-if/apps/\(world.appID)/onboardings", token: owner.token,
            contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
            body: #"{"vendorThingID":"bench-history","thingPassword":"bench-pass","owner":"user:\#(owner.id)"}"#,
            expected: 200)
        let thing = ThingID(onboarded["thingID"]?.stringValue ?? "")
        await BenchWorld.close(setUp)
        let count = options.stateHistory
        let began = Int64(Date().timeIntervalSince1970 * 1000) - Int64(count) * 100
        let store = try SQLiteStore(path: world.directory + "/topicgate.sqlite")
        var written = 0
        while written < count {
            var batch: [ThingStateRecord] = []
            for index in written..<min(count, written + 10_000) {
                let state: [String: JSONValue] = [
                    "power": .bool(index % 2 == 0), "temperature": .int(Int64(index % 10)),
                ]
                let at = UnixMillis(began + Int64(index) * 100)
                batch.append(ThingStateRecord(state: state, recordedAt: at, alias: "AirConditionerAlias"))
            }
            try await store.recordState(
                appID: AppID(world.appID), thing: thing, batch, keepSince: UnixMillis(0), keepAtMost: Int.max / 2)
            written += batch.count
        }
        let path =
            "/thing-if/apps/\(world.appID)/targets/thing:\(thing.rawValue)/states/aliases/AirConditionerAlias/query"
        let media = "application/vnd.kii.TraitStateQueryRequest+json"
        // Opened once the states are written: the gateway closes a connection idle for 10 s,
        // and writing a million states takes longer.
        let connections = try await world.connections(1)
        let connection = connections[0]
        func median(_ body: String, expectResults: Bool = true) async throws -> Double {
            var latencies: [Duration] = []
            for _ in 0..<options.stateQueries {
                let start = ContinuousClock.now
                let answer = try await world.call(
                    connection, .POST, path, token: owner.token, contentType: media, body: body, expected: 200)
                latencies.append(ContinuousClock.now - start)
                let found = answer["results"]?.arrayValue?.count ?? answer["groupedResults"]?.arrayValue?.count ?? 0
                if expectResults && found == 0 { throw BenchError("the state query \(body) found nothing") }
            }
            return LatencyStatistics(latencies).p50.milliseconds
        }
        let oldest = try await median(#"{"query":{"clause":{"type":"all"}},"bestEffortLimit":100}"#)
        let middle = "\(began + Int64(count / 2) * 100).0"
        let afterKey = try await median(
            #"{"query":{"clause":{"type":"all"}},"bestEffortLimit":100,"paginationKey":"\#(middle)"}"#)
        let ranged = try await median(
            #"{"query":{"clause":{"type":"range","field":"temperature","lowerLimit":9}},"bestEffortLimit":100}"#)
        let hourStart = began + Int64(count / 2) * 100
        let grouped = try await median(
            #"{"query":{"grouped":true,"clause":{"type":"withinTimeRange","lowerLimit":\#(hourStart),"upperLimit":\#(hourStart + 3_599_999)},"aggregations":[{"type":"MEAN","field":"temperature","fieldType":"INTEGER","putAggregationInto":"mean"}]}}"#
        )
        await BenchWorld.close(connections)
        let over = "over \(count) states of one alias"
        func row(_ metric: String, _ value: Double) -> BenchRow {
            BenchRow(
                scenario: "statequeries", metric: "\(metric), \(over): median", unit: "ms", topicGate: value,
                baseline: nil, baselineName: "(a time, no baseline)", gatewayPeakBytes: world.gatewayPeak)
        }
        return [
            row("state query, a page of 100 from the oldest", oldest),
            row("state query, a page of 100 after a key in the middle", afterKey),
            row("state query, a range one state in ten matches, a page of 100", ranged),
            row("state query, grouped by 15 minutes over an hour, mean", grouped),
        ]
    }
}
