import HTTPTypes
import TestSupport
import Testing
import TopicGateCore

/// End nodes are attached by proof, never by sharing an owner with the gateway, and a token a
/// gateway mints for an end node acts for its Thing-IF traffic only. Kii's Go SDK's own call
/// sequences (kii_go's tests) run as they are; the takeover a co-owner of a gateway could once
/// make does not happen.
@Suite("End nodes attached by proof")
struct EndNodeAuthorityTests {
    /// kii_go's `GatewayOnboard`: an anonymous token (client credentials with the app ID and any
    /// secret), then onboarding by thing with vendor thing ID `gatewayID`, layout GATEWAY, no
    /// owner, every field serialized as kii_go does. The gateway's ID and token.
    static func gatewayOnboard(_ client: TestServer.Client, vendorThingID: String = "gatewayID") async throws
        -> (id: String, token: String)
    {
        let anonymous = try await client.call(
            .post, "\(client.app)/oauth2/token",
            json: ["grant_type": "client_credentials", "client_id": .string(client.appID), "client_secret": "x"]
        ).expect(.ok).require("access_token")
        let reply = try await client.call(
            .post, "/thing-if/apps/\(client.appID)/onboardings", token: anonymous,
            contentType: "application/vnd.kii.onboardingWithVendorThingIDByThing+json",
            json: [
                "vendorThingID": .string(vendorThingID), "thingPassword": "dummyPass", "thingType": "",
                "layoutPosition": "GATEWAY", "thingProperties": .null, "firmwareVersion": "",
            ]
        ).expect(.ok)
        return (try reply.require("thingID"), try reply.require("accessToken"))
    }

    /// kii_go's `RegisterAnEndNode`: the app's ID and key, no Authorization; no owner, no gateway.
    static func registerAnEndNode(_ client: TestServer.Client, _ vendorThingID: String, appKey: String) async throws
        -> String
    {
        try await client.call(
            .post, "\(client.app)/things", contentType: "application/vnd.kii.ThingRegistrationRequest+json",
            json: [
                "_vendorThingID": .string(vendorThingID), "_password": "dummyPass", "_thingType": "",
                "_layoutPosition": "END_NODE", "_firmwareVersion": "",
            ],
            headers: [HTTPField.Name("X-Kii-AppID")!: client.appID, HTTPField.Name("X-Kii-AppKey")!: appKey]
        ).expect(.created).require("_thingID")
    }

    static func attach(_ client: TestServer.Client, gateway: String, endNode: String, token: String) async throws
        -> APIReply
    {
        try await client.call(
            .put, "\(client.app)/things/\(gateway)/end-nodes/\(endNode)", token: token,
            contentType: "application/json", body: nil)
    }

    static func mint(_ client: TestServer.Client, gateway: String, endNode: String, token: String) async throws
        -> APIReply
    {
        try await client.call(
            .post, "\(client.app)/things/\(gateway)/end-nodes/\(endNode)/token", token: token,
            contentType: "application/json", body: "{}")
    }

    @Test(
        "kii_go: a gateway onboarded anonymously attaches an end node registered with the app's key, mints its token; the token reports and reads its states, updates its fields and uses its topics as the end node, but cannot delete it"
    )
    func kiiGoAddAndToken() async throws {
        let server = try await TestServer.make(push: true)
        try await server.run { client in
            let gateway = try await Self.gatewayOnboard(client)
            let endNode = try await Self.registerAnEndNode(client, "dummyID1", appKey: server.app.key)
            try await Self.attach(client, gateway: gateway.id, endNode: endNode, token: gateway.token)
                .expect(.noContent)
            // Unknown end node (TestAddEndNodeFail, TestGenerateEndNodeTokenFail).
            #expect(
                try await Self.attach(client, gateway: gateway.id, endNode: "dummyEndNode", token: gateway.token)
                    .status == .notFound)
            #expect(
                try await Self.mint(client, gateway: gateway.id, endNode: "th.notexistThing", token: gateway.token)
                    .status == .notFound)
            let minted = try await Self.mint(client, gateway: gateway.id, endNode: endNode, token: gateway.token)
                .expect(.ok)
            #expect(minted.string("id") == endNode)
            #expect(minted.object["expires_in"]?.intValue != nil)
            let token = try minted.require("access_token")
            // TestEndNodeStateSuccess.
            let states = "/thing-if/apps/\(client.appID)/targets/thing:\(endNode)/states"
            try await client.call(.put, states, token: token, json: ["power": true, "temp": 21]).expect(.noContent)
            #expect(try await client.call(.get, states, token: token).expect(.ok).object["temp"] == 21)
            // TestUpdateThing's update and read.
            try await client.call(
                .patch, "\(client.app)/things/\(endNode)", token: token,
                contentType: "application/vnd.kii.ThingUpdateRequest+json", json: ["StateUploadDisabled": false]
            ).expect(.ok)
            #expect(
                try await client.call(.get, "\(client.app)/things/\(endNode)", token: token).expect(.ok)
                    .object["StateUploadDisabled"] == false)
            // Its topics, as the end node: one in its scope, subscribed and sent to.
            let topic = "\(client.app)/things/\(endNode)/topics/readings"
            try await client.call(.put, topic, token: token).expect(.noContent)
            try await client.call(.put, "\(topic)/push/subscriptions/things/\(endNode)", token: token)
                .expect(.noContent)
            try await client.call(
                .post, "\(topic)/push/messages", token: token,
                contentType: "application/vnd.kii.SendPushMessageRequest+json", json: ["data": ["temp": 21]]
            ).expect(.created)
            // Its deletion is not the gateway's to make (TestUpdateThing's last step differs here).
            let deletion = try await client.call(.delete, "\(client.app)/things/\(endNode)", token: token)
            #expect(deletion.status == .forbidden)
            #expect(try await client.call(.get, "\(client.app)/things/\(endNode)", token: token).status == .ok)
        }
    }

    @Test(
        "kii_go: a user onboards the gateway and an end node by owner; the gateway attaches it and relays its results; an end node registered anonymously is attached by the gateway's connection report"
    )
    func kiiGoOwnedSequences() async throws {
        let server = try await TestServer.make(push: true)
        try await server.run { client in
            let user = try await client.normalUser("user4KiiGoTest", password: "dummyPassword")
            // TestReportEndnodeStatusSuccess first, on a gateway that has no owner yet.
            let gateway = try await Self.gatewayOnboard(client)
            let x = try await Self.registerAnEndNode(client, "dummyID2", appKey: server.app.key)
            try await client.call(
                .post, "/thing-if/apps/\(client.appID)/onboardings", token: user.token,
                contentType: "application/vnd.kii.OnboardingEndNodeWithGatewayVendorThingID+json",
                json: [
                    "gatewayVendorThingID": "gatewayID", "endNodeVendorThingID": .string(x),
                    "endNodePassword": "dummyPass", "owner": .string("user:\(user.id)"),
                ]
            ).expect(.ok)
            let connection = "/thing-if/apps/\(client.appID)/things/\(gateway.id)/end-nodes/\(x)/connection"
            try await client.call(.put, connection, token: gateway.token, json: ["online": true]).expect(.noContent)
            try await client.call(
                .post, "/thing-if/apps/\(client.appID)/onboardings", token: user.token,
                contentType: "application/vnd.kii.OnboardingWithThingIDByOwner+json",
                json: ["thingID": .string(x), "thingPassword": "dummyPass", "owner": .string("user:\(user.id)")]
            ).expect(.ok)
            #expect(
                try await client.call(.get, "\(client.app)/things/\(x)", token: user.token).object["_online"] == true)
            try await client.call(.put, connection, token: gateway.token, json: ["online": false]).expect(.noContent)
            #expect(
                try await client.call(.get, "\(client.app)/things/\(x)", token: user.token).object["_online"] == false)
            try await client.call(.delete, "\(client.app)/things/\(x)", token: user.token).expect(.noContent)

            // TestOnboadWithFirmwareVersion: the user onboards the gateway by owner.
            try await client.call(
                .post, "/thing-if/apps/\(client.appID)/onboardings", token: user.token,
                contentType: "application/vnd.kii.OnboardingWithThingIDByOwner+json",
                json: [
                    "thingID": .string(gateway.id), "thingPassword": "dummyPass", "owner": .string("user:\(user.id)"),
                    "layoutPosition": "GATEWAY",
                ]
            ).expect(.ok)
            // TestUpdateTraitCommandResultsSucceeded: an end node registered anonymously, onboarded by
            // the user; the user's command; the gateway (onboarded again) attaches it and mints its
            // token, which reports the results.
            let endNode = try await Self.registerAnEndNode(client, "dummyID3", appKey: server.app.key)
            try await client.call(
                .post, "/thing-if/apps/\(client.appID)/onboardings", token: user.token,
                contentType: "application/vnd.kii.OnboardingWithThingIDByOwner+json",
                json: ["thingID": .string(endNode), "thingPassword": "dummyPass", "owner": .string("user:\(user.id)")]
            ).expect(.ok)
            let target = "/thing-if/apps/\(client.appID)/targets/thing:\(endNode)"
            let command = try await client.call(
                .post, "\(target)/commands", token: user.token,
                json: ["actions": [["turnPower": ["power": true]]], "issuer": .string("user:\(user.id)")]
            ).expect(.created).require("commandID")
            let again = try await Self.gatewayOnboard(client)
            #expect(again.id == gateway.id)
            try await Self.attach(client, gateway: gateway.id, endNode: endNode, token: again.token).expect(.noContent)
            let token = try await Self.mint(client, gateway: gateway.id, endNode: endNode, token: again.token)
                .expect(.ok).require("access_token")
            try await client.call(
                .put, "\(target)/commands/\(command)/action-results", token: token,
                contentType: "application/vnd.kii.CommandResultsUpdateRequest+json",
                json: ["actionResults": [["turnPower": ["succeeded": true]]]]
            ).expect(.noContent)
            let read = try await client.call(.get, "\(target)/commands/\(command)", token: user.token).expect(.ok)
            #expect(read.object["actionResults"] != nil)
            #expect(read.string("commandState") == "DONE")
        }
    }

    @Test(
        "A gateway never takes an ownerless end node that another gateway has, by attaching it or reporting its connection: the end node stays, the other gateway's relay token keeps working; once it leaves, the second gateway attaches it"
    )
    func noGatewayTakesAnothersEndNode() async throws {
        let server = try await TestServer.make(push: true)
        try await server.run { client in
            let first = try await Self.gatewayOnboard(client, vendorThingID: "hub-1")
            let second = try await Self.gatewayOnboard(client, vendorThingID: "hub-2")
            let endNode = try await Self.registerAnEndNode(client, "sensor-9", appKey: server.app.key)
            try await Self.attach(client, gateway: first.id, endNode: endNode, token: first.token).expect(.noContent)
            let relayed = try await Self.mint(client, gateway: first.id, endNode: endNode, token: first.token)
                .expect(.ok).require("access_token")
            let states = "/thing-if/apps/\(client.appID)/targets/thing:\(endNode)/states"

            let taken = try await Self.attach(client, gateway: second.id, endNode: endNode, token: second.token)
            #expect(taken.status == .forbidden)
            #expect(taken.errorCode == "UNAUTHORIZED")
            let reported = try await client.call(
                .put, "/thing-if/apps/\(client.appID)/things/\(second.id)/end-nodes/\(endNode)/connection",
                token: second.token, json: ["online": true])
            #expect(reported.status == .forbidden)
            #expect(
                try await Self.mint(client, gateway: second.id, endNode: endNode, token: second.token).status
                    != .ok)
            func listed(_ gateway: (id: String, token: String)) async throws -> [JSONValue] {
                try await client.call(
                    .get, "/thing-if/apps/\(client.appID)/things/\(gateway.id)/end-nodes", token: gateway.token
                ).expect(.ok).object["results"]?.arrayValue ?? []
            }
            #expect(try await listed(first).count == 1)
            #expect(try await listed(second).isEmpty)
            try await client.call(.put, states, token: relayed, json: ["power": true]).expect(.noContent)

            // Once the first gateway lets it go, the second attaches it.
            try await client.call(
                .delete, "\(client.app)/things/\(first.id)/end-nodes/\(endNode)", token: first.token
            ).expect(.noContent)
            try await Self.attach(client, gateway: second.id, endNode: endNode, token: second.token)
                .expect(.noContent)
            #expect(try await listed(second).count == 1)
        }
    }

    @Test(
        "A co-owner of a gateway never attaches, reads or takes another owner's thing through it; the token the gateway mints changes no owner, password or vendor thing ID and ends when the end node leaves"
    )
    func coOwnerTakesNothing() async throws {
        let server = try await TestServer.make(push: true)
        try await server.run { client in
            let a = try await client.pseudoUser()
            let c = try await client.pseudoUser()
            // C onboards gateway G and makes A a co-owner; C owns thing K (onboarded by owner).
            let gateway = try await GatewayRoutesTests.gateway(client, owner: c, vendorThingID: "shared-hub")
            try await client.call(.put, "\(client.app)/things/\(gateway.id)/ownership/user:\(a.id)", token: c.token)
                .expect(.noContent)
            let k = try await client.call(
                .post, "/thing-if/apps/\(client.appID)/onboardings", token: c.token,
                contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
                json: ["vendorThingID": "k-lock", "thingPassword": "k-secret", "owner": .string("user:\(c.id)")]
            ).expect(.ok).require("thingID")
            let kStates = "/thing-if/apps/\(client.appID)/targets/thing:\(k)/states"
            try await client.call(.put, kStates, token: c.token, json: ["locked": true]).expect(.noContent)

            // Through G's own token or A's: no attachment, no token, no onboarding without K's password.
            for token in [gateway.token, a.token] {
                let attached = try await Self.attach(client, gateway: gateway.id, endNode: k, token: token)
                #expect(attached.status == .forbidden)
                #expect(attached.object["errorCode"] != nil)
                #expect(
                    try await Self.mint(client, gateway: gateway.id, endNode: k, token: token).status == .notFound)
            }
            let guessed = try await GatewayRoutesTests.endNode(
                client, owner: a, token: a.token, gateway: gateway.id, vendorThingID: "k-lock")
            #expect(guessed.status != .ok)
            let reports = "/thing-if/apps/\(client.appID)/things/\(gateway.id)/end-nodes/\(k)/connection"
            #expect(
                try await client.call(.put, reports, token: gateway.token, json: ["online": true]).status
                    == .forbidden)
            // A reads nothing of K.
            for path in ["\(client.app)/things/\(k)", kStates, "\(client.app)/things/\(k)/ownership"] {
                #expect(try await client.call(.get, path, token: a.token).status == .forbidden, "\(path)")
            }
            let listed = try await client.call(
                .get, "/thing-if/apps/\(client.appID)/things/\(gateway.id)/end-nodes", token: a.token
            ).expect(.ok)
            #expect(listed.object["results"] == .array([]))

            // Even once C attaches K to the shared gateway, the token G mints for K takes nothing.
            try await Self.attach(client, gateway: gateway.id, endNode: k, token: c.token).expect(.noContent)
            #expect(try await Self.mint(client, gateway: gateway.id, endNode: k, token: a.token).status == .forbidden)
            let relayed = try await Self.mint(client, gateway: gateway.id, endNode: k, token: gateway.token)
                .expect(.ok).require("access_token")
            try await client.call(.put, kStates, token: relayed, json: ["locked": false]).expect(.noContent)
            let ownership = "\(client.app)/things/\(k)/ownership"
            let refusals: [(HTTPRequest.Method, String, String?, String?)] = [
                (.put, "\(ownership)/user:\(a.id)", nil, nil),
                (.delete, "\(ownership)/user:\(c.id)", nil, nil),
                (.get, ownership, nil, nil),
                (.delete, "\(client.app)/things/\(k)", nil, nil),
                (
                    .put, "\(client.app)/things/\(k)/password", "application/vnd.kii.ChangeThingPasswordRequest+json",
                    #"{"newPassword":"taken-over"}"#
                ),
                (
                    .put, "\(client.app)/things/\(k)/vendor-thing-id",
                    "application/vnd.kii.VendorThingIDUpdateRequest+json",
                    #"{"_vendorThingID":"k-taken","_password":"taken-over"}"#
                ),
            ]
            for (method, path, contentType, body) in refusals {
                let reply = try await client.call(method, path, token: relayed, contentType: contentType, body: body)
                #expect(reply.status == .forbidden, "\(method) \(path): \(reply.status) \(reply.text)")
            }
            // C keeps K, alone, with its password.
            let owners = try await client.call(.get, ownership, token: c.token).expect(.ok)
            #expect(owners.object["users"] == .array([.string(c.id)]))
            try await client.call(
                .post, "/thing-if/apps/\(client.appID)/onboardings", token: c.token,
                contentType: "application/vnd.kii.OnboardingWithThingIDByOwner+json",
                json: ["thingID": .string(k), "thingPassword": "k-secret", "owner": .string("user:\(c.id)")]
            ).expect(.ok)
            // Detached, the minted token ends.
            try await client.call(.delete, "\(client.app)/things/\(gateway.id)/end-nodes/\(k)", token: c.token)
                .expect(.noContent)
            #expect(
                try await client.call(.put, kStates, token: relayed, json: ["locked": true]).status != .noContent)
        }
    }
}
