import Foundation
import HTTPTypes
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore

/// A thing's password change leaves whoever knew the old password with nothing: no token, no
/// MQTT credentials, no commands.
@Suite("Thing password change over MQTT")
struct ThingPasswordRevocationTests {
    @Test("An attacker who onboarded with the old password is kicked, cannot reconnect and receives no command")
    func passwordChangeRevokesOnboardedDevices() async throws {
        let world = try await PushWorld.started()
        try await world.stopping {
            let owner = try await world.pseudoUser()
            let thing = try await world.onboardThing("lamp-stolen", owner: owner)
            // The attacker knows the password and onboards as the thing.
            let stolen = try await world.call(
                .post, "/thing-if/apps/\(world.appID)/onboardings",
                contentType: "application/vnd.kii.OnboardingWithVendorThingIDByThing+json",
                body: JSONWriter.string(["vendorThingID": "lamp-stolen", "thingPassword": "thing-secret"]))
            #expect(stolen.status == .ok)
            guard case .object(let stolenObject)? = stolen.object["mqttEndpoint"] else {
                throw TestFailure("no mqttEndpoint for the attacker")
            }
            let stolenEndpoint = PushWorld.Endpoint(
                installationID: stolenObject["installationID"]?.stringValue ?? "", object: stolenObject)
            #expect(stolenEndpoint.topic != thing.endpoint.topic)
            let attacker = try await world.connectedDevice(stolenEndpoint)
            defer { attacker.shutdown() }
            let attackerReceived = ReceivedMessages(attacker)
            var attackerEvents = attacker.connectionEvents.makeAsyncIterator()
            #expect(await attackerEvents.next() == .connected)

            // The owner changes the password: the attacker's token and device are revoked.
            #expect(
                try await world.call(
                    .put, "\(world.app)/things/\(thing.id)/password", token: owner.token,
                    contentType: "application/vnd.kii.ChangeThingPasswordRequest+json",
                    body: JSONWriter.string(["newPassword": "new-thing-secret"])
                ).status == .noContent)
            #expect(await attackerEvents.next() == .disconnected(expected: false))
            if case .refused? = await attackerEvents.next() {
            } else {
                Issue.record("the attacker's device reconnected")
            }
            let stolenToken = try #require(stolen.object["accessToken"]?.stringValue)
            #expect(
                try await world.call(
                    .get, "/thing-if/apps/\(world.appID)/targets/thing:\(thing.id)/states", token: stolenToken
                ).status == .forbidden)

            // The real thing onboards with the new password and gets the next command; the
            // attacker's old credentials get nothing.
            let renewed = try await world.call(
                .post, "/thing-if/apps/\(world.appID)/onboardings",
                contentType: "application/vnd.kii.OnboardingWithVendorThingIDByThing+json",
                body: JSONWriter.string(["vendorThingID": "lamp-stolen", "thingPassword": "new-thing-secret"]))
            guard case .object(let renewedObject)? = renewed.object["mqttEndpoint"] else {
                throw TestFailure("no mqttEndpoint after the password change")
            }
            let device = try await world.connectedDevice(
                PushWorld.Endpoint(
                    installationID: renewedObject["installationID"]?.stringValue ?? "", object: renewedObject))
            defer { device.shutdown() }
            let received = ReceivedMessages(device)
            let command = try await world.call(
                .post, "/thing-if/apps/\(world.appID)/targets/thing:\(thing.id)/commands", token: owner.token,
                contentType: "application/vnd.kii.CommandCreationRequest+json",
                body: JSONWriter.string([
                    "issuer": .string("user:\(owner.id)"), "actions": [["Lamp": [["power": true]]]],
                ]))
            #expect(command.status == .created)
            #expect(await received.wait(for: 1).first?.object["commandID"] == command.object["commandID"])
            // The attacker was kicked and refused: it holds no session to receive anything on.
            #expect(attackerReceived.all.isEmpty)
            #expect(!attacker.isConnected)
            let reconnect = try world.device(stolenEndpoint)
            defer { reconnect.shutdown() }
            await #expect(throws: MQTTError.self) { try await reconnect.connect(timeout: .seconds(5)) }
        }
    }
}
