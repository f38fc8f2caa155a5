import HTTPTypes
import TestSupport
import Testing
import TopicGateCore

/// Thing-IF gateways and end nodes over HTTP, as Kii's SDKs call them: onboarding through the
/// gateway (both media types, in the SDKs' letter cases), adding, listing with paging, removing,
/// the end node's token, connection reports; and the refusals for those who own neither.
@Suite("Gateways and end nodes over HTTP")
struct GatewayRoutesTests {
    /// A gateway onboarded by `owner` (Android's body, layout position GATEWAY).
    static func gateway(_ client: TestServer.Client, owner: (id: String, token: String), vendorThingID: String)
        async throws -> (id: String, token: String)
    {
        let reply = try await client.call(
            .post, "/thing-if/apps/\(client.appID)/onboardings", token: owner.token,
            contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
            json: [
                "vendorThingID": .string(vendorThingID), "thingPassword": "gatewaypass", "thingType": "hub",
                "layoutPosition": "GATEWAY", "owner": .string("user:\(owner.id)"),
            ]
        ).expect(.ok)
        return (try reply.require("thingID"), try reply.require("accessToken"))
    }

    /// An end node onboarded through `gateway` by `owner`; `vendorForm` uses the gateway's
    /// vendor thing ID.
    static func endNode(
        _ client: TestServer.Client, owner: (id: String, token: String)?, token: String, gateway: String,
        vendorThingID: String, vendorForm: Bool = false
    ) async throws -> APIReply {
        var body: [String: JSONValue] = [
            "endNodeVendorThingID": .string(vendorThingID), "endNodePassword": "endnodepass",
            "endNodeThingType": "lamp", "endNodeFirmwareVersion": "1.0", "endNodeThingProperties": ["_vendor": "acme"],
        ]
        body[vendorForm ? "gatewayVendorThingID" : "gatewayThingID"] = .string(gateway)
        if let owner { body["owner"] = .string("USER:\(owner.id)") }
        return try await client.call(
            .post, "/thing-if/apps/\(client.appID)/onboardings", token: token,
            contentType: vendorForm
                ? "application/vnd.kii.OnboardingEndNodeWithGatewayVendorThingID+json"
                : "application/vnd.kii.onboardingEndNodeWithGatewayThingID+json", json: .object(body))
    }

    @Test(
        "Onboard a gateway and its end nodes (both media types), list them a page at a time, read an end node as its owner, remove one"
    )
    func endNodes() async throws {
        let server = try await TestServer.make(push: true)
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let gateway = try await Self.gateway(client, owner: owner, vendorThingID: "hub-1")
            var endNodes: [String] = []
            for index in 0..<3 {
                let reply = try await Self.endNode(
                    client, owner: owner, token: owner.token, gateway: index == 1 ? "hub-1" : gateway.id,
                    vendorThingID: "lamp-\(index)", vendorForm: index == 1
                ).expect(.ok)
                #expect(reply.string("accessToken") != nil)
                #expect(reply.object["mqttEndpoint"] == nil)
                endNodes.append(try reply.require("endNodeThingID"))
            }
            let read = try await client.call(.get, "\(client.app)/things/\(endNodes[0])", token: owner.token).expect(
                .ok)
            #expect(read.string("_layoutPosition") == "END_NODE")
            #expect(read.string("_thingType") == "lamp")
            #expect(read.string("_firmwareVersion") == "1.0")
            #expect(read.string("_vendor") == "acme")
            #expect(read.object["_online"] == nil)

            var listed: [String] = []
            var key: String?
            repeat {
                let path =
                    "/thing-if/apps/\(client.appID)/things/\(gateway.id)/end-nodes?bestEffortLimit=2"
                    + (key.map { "&paginationKey=\($0)" } ?? "")
                let page = try await client.call(.get, path, token: gateway.token).expect(.ok)
                for entry in page.object["results"]?.arrayValue ?? [] {
                    listed.append(entry.objectValue?["thingID"]?.stringValue ?? "")
                    #expect(entry.objectValue?["vendorThingID"]?.stringValue?.hasPrefix("lamp-") == true)
                }
                key = page.string("nextPaginationKey")
            } while key != nil
            #expect(listed.sorted() == endNodes.sorted())
            // The owner lists them too, under the Cloud API's root.
            let byOwner = try await client.call(
                .get, "\(client.app)/things/\(gateway.id)/end-nodes", token: owner.token
            ).expect(.ok)
            #expect(byOwner.object["results"]?.arrayValue?.count == 3)

            try await client.call(
                .delete, "\(client.app)/things/\(gateway.id)/end-nodes/\(endNodes[2])", token: owner.token
            ).expect(.noContent)
            let gone = try await client.call(
                .delete, "\(client.app)/things/\(gateway.id)/end-nodes/\(endNodes[2])", token: owner.token)
            #expect(gone.status == .notFound)
            #expect(gone.errorCode == "END_NODE_NOT_FOUND")
            // Added back by the gateway: every owner of the gateway owns it.
            try await client.call(
                .put, "\(client.app)/things/\(gateway.id)/end-nodes/\(endNodes[2])", token: gateway.token,
                contentType: "application/json", body: nil
            ).expect(.noContent)
        }
    }

    @Test(
        "An end node's owners are its gateway's when none is given; the end node's token from its gateway acts as the end node; connection reports show as _online"
    )
    func tokenAndConnection() async throws {
        let server = try await TestServer.make(push: true)
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let gateway = try await Self.gateway(client, owner: owner, vendorThingID: "hub-2")
            let endNode = try await Self.endNode(
                client, owner: nil, token: owner.token, gateway: gateway.id, vendorThingID: "sensor-1"
            ).expect(.ok).require("endNodeThingID")
            let owners = try await client.call(.get, "\(client.app)/things/\(endNode)/ownership", token: owner.token)
                .expect(.ok)
            #expect(owners.object["users"] == .array([.string(owner.id)]))

            for expiry in [#"{}"#, #"{"expires_in":""}"#, #"{"expires_in":"3600"}"#, #"{"expires_in":60}"#] {
                let token = try await client.call(
                    .post, "\(client.app)/things/\(gateway.id)/end-nodes/\(endNode)/token", token: gateway.token,
                    contentType: "application/json", body: expiry
                ).expect(.ok)
                #expect(token.string("id") == endNode)
                let endNodeToken = try token.require("access_token")
                try await client.call(
                    .put, "/thing-if/apps/\(client.appID)/targets/thing:\(endNode)/states", token: endNodeToken,
                    contentType: "application/json", json: ["temperature": 21]
                ).expect(.noContent)
            }
            let badExpiry = try await client.call(
                .post, "\(client.app)/things/\(gateway.id)/end-nodes/\(endNode)/token", token: gateway.token,
                contentType: "application/json", body: #"{"expires_in":"soon"}"#)
            #expect(badExpiry.errorCode == "INVALID_INPUT_DATA")

            // The gateway reports with its own token (kii_go), the owner with the user's (GWA).
            for (token, online) in [(gateway.token, true), (owner.token, false), (gateway.token, true)] {
                try await client.call(
                    .put, "/thing-if/apps/\(client.appID)/things/\(gateway.id)/end-nodes/\(endNode)/connection",
                    token: token, contentType: "application/json", json: ["online": .bool(online)]
                ).expect(.noContent)
                let read = try await client.call(.get, "\(client.app)/things/\(endNode)", token: owner.token)
                #expect(read.object["_online"] == .bool(online))
                #expect(read.object["_onlineStatusModifiedAt"]?.intValue != nil)
            }
            let badReport = try await client.call(
                .put, "/thing-if/apps/\(client.appID)/things/\(gateway.id)/end-nodes/\(endNode)/connection",
                token: gateway.token, contentType: "application/json", json: ["online": "yes"])
            #expect(badReport.errorCode == "INVALID_INPUT_DATA")
        }
    }

    @Test(
        "Who owns neither gets 403 everywhere; no gateway takes another's thing; a standalone thing is no gateway; unknown things are 404"
    )
    func refusals() async throws {
        let server = try await TestServer.make(push: true)
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let stranger = try await client.pseudoUser()
            let gateway = try await Self.gateway(client, owner: owner, vendorThingID: "hub-3")
            let endNode = try await Self.endNode(
                client, owner: owner, token: owner.token, gateway: gateway.id, vendorThingID: "node-3"
            ).expect(.ok).require("endNodeThingID")
            let strangerGateway = try await Self.gateway(client, owner: stranger, vendorThingID: "hub-x")

            let onboarding = try await Self.endNode(
                client, owner: stranger, token: stranger.token, gateway: gateway.id, vendorThingID: "node-x")
            #expect(onboarding.status == .forbidden)
            let requests: [(HTTPRequest.Method, String, String?)] = [
                (.get, "/thing-if/apps/\(client.appID)/things/\(gateway.id)/end-nodes", nil),
                (.delete, "\(client.app)/things/\(gateway.id)/end-nodes/\(endNode)", nil),
                (.put, "\(client.app)/things/\(gateway.id)/end-nodes/\(endNode)", nil),
                (.post, "\(client.app)/things/\(gateway.id)/end-nodes/\(endNode)/token", "{}"),
                (
                    .put, "/thing-if/apps/\(client.appID)/things/\(gateway.id)/end-nodes/\(endNode)/connection",
                    #"{"online":true}"#
                ),
                (.get, "\(client.app)/things/\(endNode)", nil),
                (.get, "/thing-if/apps/\(client.appID)/targets/thing:\(endNode)/states", nil),
            ]
            for (method, path, body) in requests {
                let reply = try await client.call(
                    method, path, token: stranger.token, contentType: "application/json", body: body)
                #expect(reply.status == .forbidden, "\(method) \(path)")
            }
            // The stranger's own gateway cannot take the owner's end node: it would get its commands.
            let taken = try await client.call(
                .put, "\(client.app)/things/\(strangerGateway.id)/end-nodes/\(endNode)", token: strangerGateway.token,
                contentType: "application/json", body: nil)
            #expect(taken.status == .forbidden)
            let stolenToken = try await client.call(
                .post, "\(client.app)/things/\(strangerGateway.id)/end-nodes/\(endNode)/token",
                token: strangerGateway.token, contentType: "application/json", body: "{}")
            #expect(stolenToken.status == .notFound)

            let lamp = try await client.thing("standalone")
            let notGateway = try await Self.endNode(
                client, owner: owner, token: owner.token, gateway: lamp.id, vendorThingID: "node-y")
            #expect(notGateway.errorCode == "INVALID_INPUT_DATA")
            let unknown = try await Self.endNode(
                client, owner: owner, token: owner.token, gateway: "th.nosuchgateway", vendorThingID: "node-z")
            #expect(unknown.errorCode == "THING_NOT_FOUND")
            let notExisting = try await client.call(
                .put, "\(client.app)/things/\(gateway.id)/end-nodes/th.dummyEndNode", token: gateway.token,
                contentType: "application/json", body: nil)
            #expect(notExisting.status == .notFound)
        }
    }
}
