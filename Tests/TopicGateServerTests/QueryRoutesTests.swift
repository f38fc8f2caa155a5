import HTTPTypes
import TestSupport
import Testing
import TopicGateCore

/// Kii's user and thing queries as kii_go and the JavaScript SDK send them: the clause language,
/// ordering, `bestEffortLimit` as a number or a string, paging, who may ask, and Kii's errors.
@Suite("User and thing queries over HTTP")
struct QueryRoutesTests {
    static func users(
        _ client: TestServer.Client, admin: String, _ query: JSONValue, limit: JSONValue? = nil,
        key: String? = nil, media: String = "application/vnd.kii.UserQueryRequest+json"
    ) async throws -> APIReply {
        var body: [String: JSONValue] = ["userQuery": query]
        if let limit { body["bestEffortLimit"] = limit }
        if let key { body["paginationKey"] = .string(key) }
        return try await client.call(
            .post, "\(client.app)/users/query", token: admin, contentType: media, json: .object(body))
    }

    static func names(_ reply: APIReply) -> [String] {
        (reply.object["results"]?.arrayValue ?? []).compactMap { $0.objectValue?["loginName"]?.stringValue }
    }

    @Test(
        "kii_go's user query test: eq on loginName, eq on displayName ordered descending, a page of 2 then the rest; every clause type"
    )
    func userQueries() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let admin = try await client.adminToken()
            for (name, display, country) in [
                ("user-a", "tester", "JP"), ("user-b", "tester", "US"), ("user-c", "tester", "JP"),
                ("other-1", "someone", "FR"),
            ] {
                try await client.call(
                    .post, "\(client.app)/users", contentType: "application/vnd.kii.RegistrationRequest+json",
                    json: [
                        "loginName": .string(name), "password": "dummyPassword", "displayName": .string(display),
                        "country": .string(country), "emailAddress": .string("\(name)@example.com"),
                    ]
                ).expect(.created)
            }
            let one = try await Self.users(
                client, admin: admin, ["clause": ["type": "eq", "field": "loginName", "value": "USER-B"]]
            )
            .expect(.ok)
            #expect(Self.names(one) == ["user-b"])
            #expect(one.object["queryDescription"]?.stringValue != nil)
            #expect(one.object["nextPaginationKey"] == nil)
            let first = one.object["results"]?.arrayValue?.first?.objectValue
            #expect(first?["emailAddress"]?.stringValue == "user-b@example.com")

            let ordered = try await Self.users(
                client, admin: admin,
                [
                    "clause": ["type": "eq", "field": "displayName", "value": "tester"], "orderBy": "loginName",
                    "descending": true,
                ])
            #expect(Self.names(ordered) == ["user-c", "user-b", "user-a"])

            let page = try await Self.users(
                client, admin: admin,
                ["clause": ["type": "eq", "field": "displayName", "value": "tester"], "orderBy": "loginName"],
                limit: "2")
            #expect(Self.names(page) == ["user-a", "user-b"])
            let key = try #require(page.object["nextPaginationKey"]?.stringValue)
            let rest = try await Self.users(
                client, admin: admin,
                ["clause": ["type": "eq", "field": "displayName", "value": "tester"], "orderBy": "loginName"],
                limit: 2, key: key, media: "application/vnd.kii.userqueryrequest+json")
            #expect(Self.names(rest) == ["user-c"])
            #expect(rest.object["nextPaginationKey"] == nil)

            let cases: [(JSONValue, [String])] = [
                (["type": "prefix", "field": "loginName", "prefix": "user-"], ["user-a", "user-b", "user-c"]),
                (["type": "in", "field": "country", "values": ["FR", "US"]], ["other-1", "user-b"]),
                (
                    ["type": "not", "clause": ["type": "eq", "field": "country", "value": "JP"]], ["other-1", "user-b"]
                ),
                (
                    [
                        "type": "and",
                        "clauses": [
                            ["type": "eq", "field": "country", "value": "JP"],
                            ["type": "prefix", "field": "emailAddress", "prefix": "user-c"],
                        ],
                    ], ["user-c"]
                ),
                (
                    [
                        "type": "or",
                        "clauses": [
                            ["type": "eq", "field": "loginName", "value": "user-a"],
                            ["type": "eq", "field": "loginName", "value": "other-1"],
                        ],
                    ], ["other-1", "user-a"]
                ),
                (["type": "range", "field": "createdAt", "lowerLimit": 0], ["other-1", "user-a", "user-b", "user-c"]),
                (["type": "range", "field": "createdAt", "upperLimit": 0, "upperIncluded": false], []),
                (
                    ["type": "hasField", "field": "displayName", "fieldType": "STRING"],
                    ["other-1", "user-a", "user-b", "user-c"]
                ),
                (["type": "all"], ["other-1", "user-a", "user-b", "user-c"]),
                (["type": "prefix", "field": "loginName", "prefix": "user_"], []),
            ]
            for (clause, expected) in cases {
                let reply = try await Self.users(client, admin: admin, ["clause": clause, "orderBy": "loginName"])
                    .expect(.ok)
                #expect(Self.names(reply) == expected, "\(clause)")
            }
            let refusals: [(JSONValue, String)] = [
                (["type": "eq", "field": "password_hash", "value": "x"], "password_hash"),
                (["type": "eq", "field": "createdAt", "value": "yesterday"], "clause"),
                (["type": "sometimes"], "clause"), (["type": "in", "field": "country", "values": []], "clause"),
            ]
            for (clause, field) in refusals {
                let refused = try await Self.users(client, admin: admin, ["clause": clause])
                #expect(refused.status == .badRequest, "\(clause)")
                #expect(refused.errorCode == "INVALID_INPUT_DATA")
                #expect(refused.string("field") == field, "\(clause)")
            }
            let badKey = try await Self.users(client, admin: admin, ["clause": ["type": "all"]], key: "not-a-key")
            #expect(badKey.errorCode == "INVALID_INPUT_DATA")
            let user = try await client.pseudoUser()
            #expect(try await Self.users(client, admin: user.token, ["clause": ["type": "all"]]).status == .forbidden)
            #expect(try await Self.users(client, admin: "dummy", ["clause": ["type": "all"]]).status == .forbidden)
        }
    }

    @Test(
        "kii_go's thing query test: a user's things by owner clause, with the layout position, a page of 1 then the next; an unlimited user query is refused; the admin queries all"
    )
    func thingQueries() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let stranger = try await client.pseudoUser()
            let group = try await client.group(owner: owner.token, name: "home")
            let hub = try await GatewayRoutesTests.gateway(client, owner: owner, vendorThingID: "q-hub")
            let node = try await GatewayRoutesTests.endNode(
                client, owner: owner, token: owner.token, gateway: hub.id, vendorThingID: "q-node"
            ).expect(.ok).require("endNodeThingID")
            _ = try await client.thing("q-foreign")
            let media = "application/vnd.kii.ThingQueryRequest+json"
            func query(_ token: String, _ clause: JSONValue, limit: JSONValue? = nil, key: String? = nil) async throws
                -> APIReply
            {
                var body: [String: JSONValue] = ["thingQuery": ["clause": clause, "orderBy": "_vendorThingID"]]
                if let limit { body["bestEffortLimit"] = limit }
                if let key { body["paginationKey"] = .string(key) }
                return try await client.call(
                    .post, "\(client.app)/things/query", token: token, contentType: media, json: .object(body))
            }
            func vendors(_ reply: APIReply) -> [String] {
                (reply.object["results"]?.arrayValue ?? []).compactMap {
                    $0.objectValue?["_vendorThingID"]?.stringValue
                }
            }
            let mine: JSONValue = ["type": "contains", "field": "userOwners", "value": .string(owner.id)]
            let both = try await query(owner.token, mine).expect(.ok)
            #expect(vendors(both) == ["q-hub", "q-node"])
            #expect(both.object["results"]?.arrayValue?.first?.objectValue?["_thingID"]?.stringValue == hub.id)
            let endNodes = try await query(
                owner.token,
                ["type": "and", "clauses": [mine, ["type": "eq", "field": "_layoutPosition", "value": "END_NODE"]]])
            #expect(vendors(endNodes) == ["q-node"])
            let page = try await query(owner.token, mine, limit: "1")
            #expect(vendors(page) == ["q-hub"])
            let key = try #require(page.object["nextPaginationKey"]?.stringValue)
            let next = try await query(owner.token, mine, limit: 1, key: key)
            #expect(vendors(next) == ["q-node"])
            #expect(next.object["nextPaginationKey"] == nil)

            // Through a group it owns: the group's clause is its own too.
            try await client.call(.put, "\(client.app)/things/\(node)/ownership/group:\(group)", token: owner.token)
                .expect(.noContent)
            let byGroup = try await query(
                owner.token,
                [
                    "type": "or",
                    "clauses": [mine, ["type": "contains", "field": "groupOwners", "value": .string(group)]],
                ])
            #expect(vendors(byGroup) == ["q-hub", "q-node"])

            for clause: JSONValue in [
                ["type": "all"], ["type": "eq", "field": "_thingType", "value": "hub"],
                ["type": "contains", "field": "userOwners", "value": .string(owner.id)],
                ["type": "or", "clauses": [mine, ["type": "all"]]],
            ] {
                let refused = try await query(stranger.token, clause)
                #expect(refused.status == .forbidden, "\(clause)")
            }
            #expect(try await query(hub.token, mine).status == .forbidden)
            let admin = try await client.adminToken()
            let all = try await query(admin, ["type": "all"]).expect(.ok)
            #expect(vendors(all) == ["q-foreign", "q-hub", "q-node"])
            let typed = try await query(admin, ["type": "eq", "field": "_thingType", "value": "hub"])
            #expect(vendors(typed) == ["q-hub"])
            let unknown = try await query(admin, ["type": "eq", "field": "color", "value": "red"])
            #expect(unknown.errorCode == "INVALID_INPUT_DATA")
        }
    }
}
