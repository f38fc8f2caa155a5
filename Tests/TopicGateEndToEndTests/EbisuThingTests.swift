import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore

/// A thing running Kii's C SDK (ebisu), spoken byte for byte against the real executable and
/// its embedded Mosquitto: onboarding, installation, an MQTT endpoint that fits the SDK's
/// buffers, a command over MQTT 3.1 at QoS 0, its results (DONE) and a state upload.
@Suite("Kii's C thing SDK (ebisu)")
struct EbisuThingTests {
    /// ebisu's `kii.h` buffers: password 128 bytes, the others 64 (one byte for the NUL).
    static let limits = ["password": 127, "username": 63, "mqttTopic": 63, "host": 63, "installationID": 63]

    @Test("An ebisu thing onboards, installs, receives a command over MQTT 3.1, reports DONE and uploads its state")
    func ebisuThing() async throws {
        let world = try await PushWorld.started(embedded: true)
        let owner = try await world.pseudoUser()
        let ebisu = EbisuHTTP(port: world.server.port, appID: world.appID)
        let thingIF = "/thing-if/apps/\(world.appID)"

        // An anonymous token with ebisu's dummy client secret, then onboarding by the thing.
        let anonymous = try await ebisu.call(
            "POST", "/api/apps/\(world.appID)/oauth2/token", contentType: "application/json",
            body: #"{"grant_type":"client_credentials","client_id":"\#(world.appID)","client_secret":"dummy"}"#)
        #expect(anonymous.status == 200)
        #expect(anonymous.headers.lowercased().contains("connection: close"))
        let anonymousToken = try #require(anonymous.object["access_token"]?.stringValue)
        let onboarded = try await ebisu.call(
            "POST", "\(thingIF)/onboardings", token: anonymousToken,
            contentType: "application/vnd.kii.OnboardingWithVendorThingIDByThing+json",
            body:
                #"{"vendorThingID":"ebisu-1","thingPassword":"thing-pass","thingType":"lamp","firmwareVersion":"1.0","#
                + #""layoutPosition":"STANDALONE","thingProperties":{}}"#
        )
        #expect(onboarded.status == 200)
        let thingID = try #require(onboarded.object["thingID"]?.stringValue)
        let thingToken = try #require(onboarded.object["accessToken"]?.stringValue)
        #expect(thingToken.count <= 127)
        // The thing's own login, as ebisu sends it (with grant_type).
        let login = try await ebisu.call(
            "POST", "/api/apps/\(world.appID)/oauth2/token", contentType: "application/json",
            body: #"{"username":"VENDOR_THING_ID:ebisu-1","password":"thing-pass","grant_type":"password"}"#)
        #expect(login.status == 200)
        #expect(login.object["id"]?.stringValue == thingID)

        // The owner claims the thing (as the phone app does).
        let claimed = try await world.call(
            .post, "\(thingIF)/onboardings", token: owner.token,
            contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
            body: #"{"vendorThingID":"ebisu-1","thingPassword":"thing-pass","owner":"user:\#(owner.id)"}"#)
        #expect(claimed.status == .ok)

        // Installation with "development" as a string, then the endpoint (a chunked GET).
        let installed = try await ebisu.call(
            "POST", "/api/apps/\(world.appID)/installations", token: thingToken,
            contentType: "application/vnd.kii.InstallationCreationRequest+json",
            body: #"{"deviceType":"MQTT", "development": "false"}"#)
        #expect(installed.status == 201)
        let installationID = try #require(installed.object["installationID"]?.stringValue)
        let endpoint = try await ebisu.call(
            "GET", "/api/apps/\(world.appID)/installations/\(installationID)/mqtt-endpoint", token: thingToken)
        #expect(endpoint.status == 200)
        for (key, limit) in Self.limits {
            let value = try #require(endpoint.object[key]?.stringValue, "\(key)")
            #expect(!value.isEmpty && value.count <= limit, "\(key) has \(value.count) characters")
        }
        let username = try #require(endpoint.object["username"]?.stringValue)
        let password = try #require(endpoint.object["password"]?.stringValue)
        let topic = try #require(endpoint.object["mqttTopic"]?.stringValue)
        let port = try #require(endpoint.object["portTCP"]?.intValue)

        // MQTT 3.1 (MQIsdp), client ID = username, clean session, then SUBSCRIBE at QoS 0.
        let mqtt = try RawConnection(port: Int(port), timeout: .seconds(15))
        try mqtt.send(
            MQTTPackets.connect(
                protocol: MQTTPackets.mqtt31, clientID: username, username: username, password: password))
        #expect(try await mqtt.receive(exactly: 4) == [0x20, 0x02, 0x00, 0x00])
        try mqtt.send(MQTTPackets.subscribe(topic, qos: 0))
        #expect(try await mqtt.receive(exactly: 5) == [0x90, 0x03, 0x00, 0x01, 0x00])

        // The owner sends a command; it arrives at QoS 0 with its commandID and actions.
        let sent = try await world.call(
            .post, "\(thingIF)/targets/thing:\(thingID)/commands", token: owner.token,
            contentType: "application/vnd.kii.CommandCreationRequest+json",
            body: #"{"actions":[{"LampAlias":[{"turnPower":true}]}],"issuer":"user:\#(owner.id)"}"#)
        #expect(sent.status == .created)
        let commandID = try #require(sent.object["commandID"]?.stringValue)
        var pending: [UInt8] = []
        var publication: (topic: String, payload: [UInt8])?
        while publication == nil {
            if let packet = MQTTPackets.next(from: &pending) {
                #expect(packet.header == 0x30, "QoS 0 PUBLISH")
                publication = MQTTPackets.publication(packet.header, packet.body)
            } else {
                let bytes = try await mqtt.receive()
                if bytes.isEmpty { throw TestFailure("the broker closed the thing's connection") }
                pending += bytes
            }
        }
        #expect(publication?.topic == topic)
        let command = try JSONReader.object(publication?.payload ?? [])
        #expect(command["commandID"]?.stringValue == commandID)
        #expect(command["actions"] != nil)

        // Results, as ebisu's command parser writes them, then the state.
        let results = try await ebisu.call(
            "PUT", "\(thingIF)/targets/thing:\(thingID)/commands/\(commandID)/action-results", token: thingToken,
            contentType: "application/vnd.kii.CommandResultsUpdateRequest+json",
            body: #"{"actionResults":[{"LampAlias":[{"turnPower":{"succeeded":true}}]}]}"#)
        #expect(results.status == 204)
        let read = try await world.call(
            .get, "\(thingIF)/targets/thing:\(thingID)/commands/\(commandID)", token: owner.token)
        #expect(read.object["commandState"]?.stringValue == "DONE")
        let state = #"{"LampAlias":{"power":true,"brightness":80}}"#
        let uploaded = try await ebisu.call(
            "PUT", "\(thingIF)/targets/thing:\(thingID)/states", token: thingToken,
            contentType: "application/vnd.kii.MultipleTraitState+json", body: state)
        #expect(uploaded.status == 204)
        let stored = try await world.call(.get, "\(thingIF)/targets/thing:\(thingID)/states", token: owner.token)
        #expect(stored.status == .ok)
        #expect(stored.object == (try JSONReader.object(Array(state.utf8))))
        try mqtt.send(MQTTPackets.disconnect)
        try await world.stop()
    }
}
