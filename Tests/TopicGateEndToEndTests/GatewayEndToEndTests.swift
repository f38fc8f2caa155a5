import Foundation
import HTTPTypes
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore

/// A Thing-IF gateway relaying for its end node, through the real executable and a real
/// Mosquitto, speaking as Kii's SDKs do (their media types and letter cases, kii_go's
/// lower-case `bearer`, GWA's upper-case `USER:`): the end node's command reaches the gateway's
/// MQTT topic naming the end node, the gateway answers for it, and only the issuer's phone gets
/// the command ID.
@Suite("Gateways and end nodes end to end")
struct GatewayEndToEndTests {
    @Test(
        "An end node's command reaches its gateway over MQTT; results in the end node's name reach only the issuer's phone; a detached end node's commands no longer reach the gateway"
    )
    func relayedCommand() async throws {
        let world = try await PushWorld.started()
        let ann = try await world.pseudoUser()
        let bob = try await world.pseudoUser()
        // Ann onboards the hub as Android does (by owner, layout position GATEWAY).
        let hub = try await world.call(
            .post, "/thing-if/apps/\(world.appID)/onboardings", token: ann.token,
            contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
            json: [
                "vendorThingID": "hub-e2e", "thingPassword": "gatewaypass", "thingType": "hub",
                "layoutPosition": "GATEWAY", "owner": .string("user:\(ann.id)"),
            ]
        ).expect(.ok)
        let hubID = try hub.require("thingID")
        let hubToken = try hub.require("accessToken")
        guard case .object(let endpointJSON)? = hub.object["mqttEndpoint"] else {
            throw TestFailure("the gateway got no MQTT endpoint")
        }
        let hubDevice = try await world.connectedDevice(
            PushWorld.Endpoint(installationID: endpointJSON["installationID"]?.stringValue ?? "", object: endpointJSON))
        defer { hubDevice.shutdown() }
        let hubInbox = ReceivedMessages(hubDevice)

        // Its end node, onboarded through it by Ann as GWA does (lower-case media type, USER:).
        let node = try await world.call(
            .post, "/thing-if/apps/\(world.appID)/onboardings", token: ann.token,
            contentType: "application/vnd.kii.onboardingEndNodeWithGatewayThingID+json",
            json: [
                "gatewayThingID": .string(hubID), "endNodeVendorThingID": "ble-lamp-1",
                "endNodePassword": "endnodepass",
                "endNodeThingType": "lamp", "owner": .string("USER:\(ann.id)"),
            ]
        ).expect(.ok)
        let nodeID = try node.require("endNodeThingID")
        // Bob is another owner of the lamp: his phone must not get Ann's command IDs.
        try await world.call(.put, "\(world.app)/things/\(nodeID)/ownership/user:\(bob.id)", token: ann.token)
            .expect(.noContent)
        let annPhone = try await world.connectedDevice(try await world.install(token: ann.token))
        let bobPhone = try await world.connectedDevice(try await world.install(token: bob.token))
        defer {
            annPhone.shutdown()
            bobPhone.shutdown()
        }
        let annInbox = ReceivedMessages(annPhone)
        let bobInbox = ReceivedMessages(bobPhone)

        // Ann's command to the lamp, in the trait form.
        let target = "/thing-if/apps/\(world.appID)/targets/thing:\(nodeID)"
        let commandID = try await world.call(
            .post, "\(target)/commands", token: ann.token,
            contentType: "application/vnd.kii.CommandCreationRequest+json",
            json: ["actions": [["LampAlias": [["turnPower": true]]]], "issuer": .string("user:\(ann.id)")]
        ).expect(.created).require("commandID")
        let relayed = try #require(await hubInbox.wait(for: 1).first?.object)
        #expect(relayed["commandID"]?.stringValue == commandID)
        #expect(relayed["target"]?.stringValue == "thing:\(nodeID)")
        #expect(relayed["endNodeThingID"]?.stringValue == nodeID)
        #expect(relayed["endNodeVendorThingID"]?.stringValue == "ble-lamp-1")
        #expect(relayed["actions"] == [["LampAlias": [["turnPower": true]]]])

        // The hub gets the lamp's token as kii_go does (lower-case header and scheme, a string
        // expires_in) and reports the results in the lamp's name.
        let lampToken = try await world.call(
            .post, "\(world.app)/things/\(hubID)/end-nodes/\(nodeID)/token", token: nil,
            contentType: "application/json", body: #"{"expires_in":""}"#,
            headers: [HTTPField.Name("authorization")!: "bearer \(hubToken)"]
        ).expect(.ok).require("access_token")
        try await world.call(
            .put, "\(target)/commands/\(commandID)/action-results", token: lampToken,
            contentType: "application/vnd.kii.CommandResultsUpdateRequest+json",
            json: ["actionResults": [["LampAlias": [["turnPower": ["succeeded": true]]]]]]
        ).expect(.noContent)
        #expect(await annInbox.wait(for: 1).first?.object["commandID"]?.stringValue == commandID)
        let bobMarker = try await world.marker(to: bob)
        let bobGot = try #require(await bobInbox.before(marker: bobMarker))
        #expect(bobGot.isEmpty, "Bob's phone got \(bobGot.map(\.object))")

        // A second command answered with the hub's own token.
        let second = try await world.call(
            .post, "\(target)/commands", token: ann.token,
            contentType: "application/vnd.kii.CommandCreationRequest+json",
            json: ["actions": [["LampAlias": [["turnPower": false]]]], "issuer": .string("user:\(ann.id)")]
        ).expect(.created).require("commandID")
        #expect(await hubInbox.wait(for: 2).last?.object["commandID"]?.stringValue == second)
        try await world.call(
            .put, "\(target)/commands/\(second)/action-results", token: hubToken,
            contentType: "application/vnd.kii.CommandResultsUpdateRequest+json",
            json: ["actionResults": [["LampAlias": [["turnPower": ["succeeded": true]]]]]]
        ).expect(.noContent)
        #expect(await annInbox.wait(for: 2).last?.object["commandID"]?.stringValue == second)
        let done = try await world.call(.get, "\(target)/commands/\(second)", token: ann.token).expect(.ok)
        #expect(done.string("commandState") == "DONE")

        // The hub reports the lamp offline; detached, the lamp's commands stop reaching the hub.
        try await world.call(
            .put, "/thing-if/apps/\(world.appID)/things/\(hubID)/end-nodes/\(nodeID)/connection", token: hubToken,
            contentType: "application/json", json: ["online": false]
        ).expect(.noContent)
        #expect(
            try await world.call(.get, "\(world.app)/things/\(nodeID)", token: ann.token).object["_online"] == false)
        // The operator's CLI shows both sides.
        let credentials = try world.server.adminCredentials()
        let environment = [
            "TOPICGATE_APP_ID": world.appID, "TOPICGATE_CLIENT_ID": credentials.clientID,
            "TOPICGATE_CLIENT_SECRET": credentials.clientSecret,
        ]
        let hubShown = try await world.server.runCLI(
            ["principals", "show", "thing:\(hubID)"], credentials: environment)
        #expect(hubShown.0 == 0)
        #expect(hubShown.1.contains("relays for end node \(nodeID) (ble-lamp-1): offline"), "\(hubShown.1)")
        let nodeShown = try await world.server.runCLI(
            ["principals", "show", "thing:\(nodeID)"], credentials: environment)
        #expect(nodeShown.1.contains("end node of gateway \(hubID): offline"), "\(nodeShown.1)")
        try await world.call(.delete, "\(world.app)/things/\(hubID)/end-nodes/\(nodeID)", token: ann.token).expect(
            .noContent)
        try await world.call(
            .post, "\(target)/commands", token: ann.token,
            contentType: "application/vnd.kii.CommandCreationRequest+json",
            json: ["actions": [["LampAlias": [["turnPower": true]]]], "issuer": .string("user:\(ann.id)")]
        ).expect(.created)
        let hubMarker = try await world.marker(to: (hubID, hubToken), kind: "things")
        let afterDetach = try #require(await hubInbox.before(marker: hubMarker, since: 2))
        #expect(afterDetach.isEmpty, "the hub still got \(afterDetach.map(\.object))")
        try await world.stop()
    }
}
