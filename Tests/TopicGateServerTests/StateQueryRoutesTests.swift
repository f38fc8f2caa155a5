import HTTPTypes
import TestSupport
import Testing
import TopicGateCore

/// Trait state history queries as Kii's Thing-IF SDKs' large tests make them (TIF-JS
/// `APIAuthorQueryTest`, `APIAuthorGroupedQueryTest`; Android's `QueryHistoryStatesTest`,
/// `AggregateTest`): the same bodies, the same answers.
@Suite("Trait state history queries")
struct StateQueryRoutesTests {
    static let media = "application/vnd.kii.TraitStateQueryRequest+json"

    @Test(
        "Ungrouped: all oldest first, a range, pages by bestEffortLimit and paginationKey, no match empty; 409 before any state, 404 for an unknown alias, 403 for a stranger"
    )
    func ungrouped() async throws {
        let clock = ManualClock()
        let server = try await TestServer.make(push: true, clock: clock)
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let stranger = try await client.pseudoUser()
            let thing = try await client.call(
                .post, "/thing-if/apps/\(client.appID)/onboardings", token: owner.token,
                contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
                json: [
                    "vendorThingID": "aircon-q", "thingPassword": "secret-pass", "owner": .string("user:\(owner.id)"),
                    "thingType": "MyAirConditioner", "firmwareVersion": "v1",
                ]
            ).expect(.ok)
            let target = "/thing-if/apps/\(client.appID)/targets/thing:\(try thing.require("thingID"))"
            let token = try thing.require("accessToken")
            func query(_ body: JSONValue, alias: String = "AirConditionerAlias", as caller: String? = nil)
                async throws -> APIReply
            {
                try await client.call(
                    .post, "\(target)/states/aliases/\(alias)/query", token: caller ?? owner.token,
                    contentType: Self.media, json: body)
            }
            let all: JSONValue = ["query": ["clause": ["type": "all"]]]
            // Never reported: 409, which every SDK reads as an empty history.
            let none = try await query(all)
            #expect(none.status == .conflict)
            #expect(none.errorCode == "STATE_HISTORY_NOT_AVAILABLE")

            let uploads: [JSONValue] = [
                ["power": true, "currentTemperature": 10],
                ["power": false, "currentTemperature": 15],
                ["power": true, "currentTemperature": .double(20.5)],
            ]
            for state in uploads {
                try await client.call(
                    .put, "\(target)/states", token: token, contentType: "application/vnd.kii.MultipleTraitState+json",
                    json: ["AirConditionerAlias": state, "HumidityAlias": ["currentHumidity": 50]]
                ).expect(.noContent)
                clock.advance(seconds: 1)
            }
            func states(_ reply: APIReply) -> [JSONValue] {
                (reply.object["results"]?.arrayValue ?? []).map { result in
                    var state = result.objectValue ?? [:]
                    #expect(state.removeValue(forKey: "_created")?.intValue != nil)
                    return .object(state)
                }
            }
            let everything = try await query(all).expect(.ok)
            #expect(states(everything) == uploads)
            #expect(everything.object["nextPaginationKey"] == nil)
            let warm = try await query([
                "query": [
                    "clause": [
                        "type": "range", "field": "currentTemperature", "lowerLimit": 11, "lowerIncluded": false,
                    ]
                ]
            ]).expect(.ok)
            #expect(states(warm) == Array(uploads[1...]))
            let first = try await query([
                "query": ["clause": ["type": "all"]], "bestEffortLimit": 2, "firmwareVersion": "v1",
            ]).expect(.ok)
            #expect(states(first) == Array(uploads[..<2]))
            let key = try first.require("nextPaginationKey")
            let rest = try await query(["query": ["clause": ["type": "all"]], "paginationKey": .string(key)]).expect(
                .ok)
            #expect(states(rest) == [uploads[2]])
            #expect(rest.object["nextPaginationKey"] == nil)
            let combined = try await query([
                "query": [
                    "clause": [
                        "type": "and",
                        "clauses": [
                            ["type": "eq", "field": "power", "value": true],
                            ["type": "not", "clause": ["type": "eq", "field": "currentTemperature", "value": 10]],
                        ],
                    ]
                ]
            ]).expect(.ok)
            #expect(states(combined) == [uploads[2]])
            let nothing = try await query([
                "query": ["clause": ["type": "eq", "field": "power", "value": "neither"]]
            ]).expect(.ok)
            #expect(nothing.object["results"] == .array([]))
            #expect(nothing.object["nextPaginationKey"] == nil)
            // The other alias has its own history.
            #expect(states(try await query(all, alias: "HumidityAlias").expect(.ok)).count == 3)

            let unknown = try await query(all, alias: "NoSuchAlias")
            #expect(unknown.status == .notFound)
            #expect(unknown.errorCode == "TRAIT_ALIAS_NOT_FOUND")
            #expect(try await query(all, as: stranger.token).status == .forbidden)
            for bad: JSONValue in [
                ["clause": ["type": "all"]],
                ["query": ["clause": ["type": "sometimes"]]],
                ["query": ["clause": ["type": "all"]], "paginationKey": "not-a-key"],
                ["query": ["clause": ["type": "all"]], "bestEffortLimit": 0],
            ] {
                let reply = try await query(bad)
                #expect(reply.status == .badRequest, "\(bad)")
                #expect(reply.errorCode == "INVALID_INPUT_DATA")
            }
        }
    }

    @Test(
        "Grouped by the thing's interval: every state in a time range in upload order, filtered by a clause, and aggregated (count, max and min with their state, mean, sum); ranges past 60 intervals refused"
    )
    func grouped() async throws {
        let clock = ManualClock()
        let server = try await TestServer.make(push: true, clock: clock)
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let thing = try await client.call(
                .post, "/thing-if/apps/\(client.appID)/onboardings", token: owner.token,
                contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
                json: [
                    "vendorThingID": "aircon-g", "thingPassword": "secret-pass", "owner": .string("user:\(owner.id)"),
                    "dataGroupingInterval": "1_MINUTE",
                ]
            ).expect(.ok)
            let target = "/thing-if/apps/\(client.appID)/targets/thing:\(try thing.require("thingID"))"
            let token = try thing.require("accessToken")
            func query(_ body: JSONValue) async throws -> APIReply {
                try await client.call(
                    .post, "\(target)/states/aliases/AirConditionerAlias/query", token: owner.token,
                    contentType: Self.media, json: body)
            }
            // At the start of a minute (to within a second), so that two states a second apart share it.
            clock.advance(seconds: 60 - (clock.now / 1000) % 60)
            let start = clock.now
            #expect(
                try await query([
                    "query": [
                        "grouped": true,
                        "clause": ["type": "withinTimeRange", "lowerLimit": 1, "upperLimit": .int(start)],
                    ]
                ]).errorCode == "STATE_HISTORY_NOT_AVAILABLE")
            // Two states, a minute, two more: at least two groups.
            let temperatures: [Int64] = [23, 26, 22, 28]
            for (index, temperature) in temperatures.enumerated() {
                if index == 2 { clock.advance(seconds: 60) }
                try await client.call(
                    .put, "\(target)/states/aliases/AirConditionerAlias", token: token,
                    contentType: "application/vnd.kii.TraitState+json",
                    json: ["power": true, "currentTemperature": .int(temperature)]
                ).expect(.noContent)
                clock.advance(seconds: 1)
            }
            let range: JSONValue = [
                "type": "withinTimeRange", "lowerLimit": .int(start - 1000), "upperLimit": .int(clock.now),
            ]
            let grouped = try await query(["query": ["grouped": true, "clause": range]]).expect(.ok)
            let groups = grouped.object["groupedResults"]?.arrayValue ?? []
            #expect(groups.count == 2)
            let objects = groups.flatMap { $0.objectValue?["objects"]?.arrayValue ?? [] }
            #expect(objects.compactMap { $0.objectValue?["currentTemperature"]?.intValue } == temperatures)
            for group in groups {
                let from = group.objectValue?["range"]?.objectValue?["from"]?.intValue ?? -1
                let to = group.objectValue?["range"]?.objectValue?["to"]?.intValue ?? -1
                #expect(to - from == 59_999)
                for object in group.objectValue?["objects"]?.arrayValue ?? [] {
                    let created = object.objectValue?["_created"]?.intValue ?? -1
                    #expect(created >= from && created <= to)
                }
            }
            let filtered = try await query([
                "query": [
                    "grouped": true,
                    "clause": [
                        "type": "and",
                        "clauses": [
                            ["type": "range", "field": "currentTemperature", "lowerLimit": 23, "lowerIncluded": false],
                            range,
                        ],
                    ],
                ],
                "firmwareVersion": "v1",
            ]).expect(.ok)
            #expect(
                (filtered.object["groupedResults"]?.arrayValue ?? []).flatMap {
                    $0.objectValue?["objects"]?.arrayValue ?? []
                }.compactMap { $0.objectValue?["currentTemperature"]?.intValue } == [26, 28])

            func aggregate(_ type: String) async throws -> [[String: JSONValue]] {
                let reply = try await query([
                    "query": [
                        "grouped": true, "clause": range,
                        "aggregations": [
                            [
                                "type": .string(type), "field": "currentTemperature", "fieldType": "INTEGER",
                                "putAggregationInto": .string(type.lowercased()),
                            ]
                        ],
                    ]
                ]).expect(.ok)
                return (reply.object["groupedResults"]?.arrayValue ?? []).map { group in
                    let aggregations = group.objectValue?["aggregations"]?.arrayValue ?? []
                    #expect(aggregations.count == 1)
                    return aggregations.first?.objectValue ?? [:]
                }
            }
            #expect(try await aggregate("COUNT").map { $0["value"] } == [2, 2])
            #expect(try await aggregate("COUNT").allSatisfy { $0["object"] == nil && $0["name"] == "count" })
            let max = try await aggregate("MAX")
            #expect(max.map { $0["value"] } == [26, 28])
            #expect(max.map { $0["object"]?.objectValue?["currentTemperature"] } == [26, 28])
            #expect(try await aggregate("MIN").map { $0["value"] } == [23, 22])
            #expect(try await aggregate("MEAN").map { $0["value"] } == [.double(24.5), 25])
            #expect(try await aggregate("SUM").map { $0["value"] } == [49, 50])
            #expect(try await aggregate("SUM").allSatisfy { $0["object"] == nil })

            // A range narrower than an interval still answers the interval that holds it.
            let now = try await query([
                "query": [
                    "grouped": true,
                    "clause": [
                        "type": "withinTimeRange", "lowerLimit": .int(clock.now), "upperLimit": .int(clock.now),
                    ],
                ]
            ]).expect(.ok)
            #expect((now.object["groupedResults"]?.arrayValue ?? []).count <= 1)
            for bad: JSONValue in [
                ["query": ["grouped": true, "clause": ["type": "all"]]],
                [
                    "query": [
                        "grouped": true,
                        "clause": ["type": "withinTimeRange", "lowerLimit": 0, "upperLimit": .int(clock.now)],
                    ]
                ],
                [
                    "query": [
                        "grouped": true, "clause": range,
                        "aggregations": [["type": "MAX", "field": "power", "fieldType": "BOOLEAN"]],
                    ]
                ],
            ] {
                let reply = try await query(bad)
                #expect(reply.status == .badRequest, "\(bad)")
                #expect(reply.errorCode == "INVALID_INPUT_DATA")
            }
        }
    }
}
