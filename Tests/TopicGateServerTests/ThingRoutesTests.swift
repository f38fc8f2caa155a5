import HTTPTypes
import TestSupport
import Testing
import TopicGateCore

@Suite("Things, ownership and onboarding over HTTP")
struct ThingRoutesTests {
    @Test("Register with and without a token; duplicates are THING_ALREADY_EXISTS; thing login")
    func register() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let created = try await client.call(
                .post, "\(client.app)/things",
                contentType: "application/vnd.kii.ThingRegistrationAndAuthorizationRequest+json",
                body:
                    JSONWriter.string([
                        "_vendorThingID": "lamp-1", "_password": "thing-password", "_thingType": "lamp",
                        "_layoutPosition": "STANDALONE", "_numberField1": 5, "color": "red",
                    ])
            )
            #expect(created.status == .created)
            let thingID = try #require(created.string("_thingID"))
            #expect(thingID.hasPrefix("th."))
            #expect(created.string("_vendorThingID") == "lamp-1")
            #expect(created.string("_thingType") == "lamp")
            #expect(created.object["_numberField1"] == 5)
            #expect(created.string("color") == "red")
            #expect(created.object["_disabled"] == false)
            #expect(created.string("_accessToken") != nil)
            #expect(created.object["_password"] == nil)

            let plain = try await client.call(
                .post, "\(client.app)/things", contentType: "application/vnd.kii.ThingRegistrationRequest+json",
                body: #"{"_vendorThingID":"lamp-2","_password":"thing-password"}"#)
            #expect(plain.status == .created)
            #expect(plain.string("_accessToken") == nil)

            let duplicate = try await client.call(
                .post, "\(client.app)/things", contentType: "application/vnd.kii.ThingRegistrationRequest+json",
                body: #"{"_vendorThingID":"lamp-1","_password":"thing-password"}"#)
            #expect(duplicate.status == .conflict)
            #expect(duplicate.errorCode == "THING_ALREADY_EXISTS")

            let badLayout = try await client.call(
                .post, "\(client.app)/things", contentType: "application/json",
                body: #"{"_vendorThingID":"lamp-3","_password":"thing-password","_layoutPosition":"SIDEWAYS"}"#)
            #expect(badLayout.errorCode == "INVALID_INPUT_DATA")
            let noPassword = try await client.call(
                .post, "\(client.app)/things", contentType: "application/json", body: #"{"_vendorThingID":"lamp-4"}"#)
            #expect(noPassword.errorCode == "INVALID_INPUT_DATA")

            let login = try await client.call(
                .post, "\(client.app)/oauth2/token", contentType: "application/json",
                body: #"{"grant_type":"password","username":"VENDOR_THING_ID:lamp-1","password":"thing-password"}"#)
            #expect(login.status == .ok)
            #expect(login.string("id") == thingID)
            let token = try #require(login.string("access_token"))
            let read = try await client.call(.get, "\(client.app)/things/VENDOR_THING_ID:lamp-1", token: token)
            #expect(read.string("_thingID") == thingID)
            let wrong = try await client.call(
                .post, "\(client.app)/oauth2/token", contentType: "application/json",
                body: #"{"username":"VENDOR_THING_ID:lamp-1","password":"wrong-password"}"#)
            #expect(wrong.status == .badRequest)
            #expect(wrong.string("access_token") == nil)
        }
    }

    @Test("A user claims a thing with its password; only owners, the thing and the admin may read it")
    func ownership() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let thing = try await client.thing("sensor-1")
            let owner = try await client.pseudoUser()
            let stranger = try await client.pseudoUser()
            let path = "\(client.app)/things/\(thing.id)"
            #expect(try await client.call(.get, path, token: owner.token).status == .forbidden)

            let wrongPassword = try await client.call(
                .post, "\(path)/ownership", token: owner.token,
                contentType: "application/vnd.kii.ThingOwnershipRequest+json",
                json: ["thingPassword": "nope-nope", "userID": .string(owner.id)])
            #expect(wrongPassword.errorCode == "WRONG_PASSWORD")
            let forOther = try await client.call(
                .post, "\(path)/ownership", token: stranger.token, contentType: "application/json",
                json: ["thingPassword": "thing-password", "userID": .string(owner.id)])
            #expect(forOther.status == .forbidden)
            let claimed = try await client.call(
                .post, "\(path)/ownership", token: owner.token,
                contentType: "application/vnd.kii.ThingOwnershipRequest+json",
                json: ["thingPassword": "thing-password", "userID": .string(owner.id)])
            #expect(claimed.status == .noContent)
            let again = try await client.call(
                .post, "\(path)/ownership", token: owner.token, contentType: "application/json",
                json: ["thingPassword": "thing-password", "userID": .string(owner.id)])
            #expect(again.errorCode == "THING_OWNERSHIP_ALREADY_EXISTS")

            #expect(try await client.call(.get, path, token: owner.token).status == .ok)
            #expect(try await client.call(.get, path, token: stranger.token).status == .forbidden)
            #expect(
                try await client.call(.head, "\(path)/ownership/user:\(owner.id)", token: owner.token).status
                    == .noContent)
            #expect(
                try await client.call(.head, "\(path)/ownership/user:\(stranger.id)", token: stranger.token).status
                    == .notFound)
            #expect(
                try await client.call(.head, "\(path)/ownership/user:\(owner.id)", token: stranger.token).status
                    == .forbidden)

            let updated = try await client.call(
                .patch, path, token: owner.token, contentType: "application/vnd.kii.ThingUpdateRequest+json",
                body: #"{"_firmwareVersion":"1.2","room":"kitchen"}"#)
            #expect(updated.string("_firmwareVersion") == "1.2")
            #expect(updated.string("room") == "kitchen")
            #expect(updated.string("_thingType") == "lamp")
            #expect(
                try await client.call(.patch, path, token: stranger.token, contentType: "application/json", body: "{}")
                    .status == .forbidden)
        }
    }

    @Test("The thing adds a group owner (any case of 'GROUP:'); members then manage it; owners are listed and removed")
    func groupOwnership() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let thing = try await client.thing("sensor-2")
            let owner = try await client.pseudoUser()
            let member = try await client.pseudoUser()
            let groupID = try #require(
                try await client.call(
                    .post, "\(client.app)/groups", token: owner.token, contentType: "application/json",
                    json: ["name": "home", "members": [.string(member.id)]]
                ).string("groupID"))
            let path = "\(client.app)/things/VENDOR_THING_ID:sensor-2"
            #expect(
                try await client.call(.put, "\(path)/ownership/group:\(groupID)", token: member.token).status
                    == .forbidden)
            #expect(
                try await client.call(.put, "\(path)/ownership/GROUP:\(groupID)", token: thing.token).status
                    == .noContent)
            #expect(
                try await client.call(.put, "\(path)/ownership/group:\(groupID)", token: thing.token).errorCode
                    == "THING_OWNERSHIP_ALREADY_EXISTS")
            #expect(
                try await client.call(.put, "\(path)/ownership/group:nosuch", token: thing.token).errorCode
                    == "GROUP_NOT_FOUND")
            #expect(try await client.call(.put, "\(path)/ownership/robot:x", token: thing.token).status == .notFound)
            #expect(try await client.call(.get, path, token: member.token).status == .ok)
            #expect(
                try await client.call(.head, "\(path)/ownership/group:\(groupID)", token: member.token).status
                    == .noContent)

            let owners = try await client.call(.get, "\(path)/ownership", token: member.token)
            #expect(owners.object["groups"] == [.string(groupID)])
            #expect(owners.object["users"] == [])

            #expect(
                try await client.call(.delete, "\(path)/ownership/group:\(groupID)", token: member.token).status
                    == .noContent)
            #expect(try await client.call(.get, path, token: member.token).status == .forbidden)
            #expect(
                try await client.call(.delete, "\(path)/ownership/group:\(groupID)", token: thing.token).errorCode
                    == "THING_OWNERSHIP_NOT_FOUND")
        }
    }

    @Test("Deleting a thing revokes its tokens; a new password revokes its other tokens")
    func deleteAndPassword() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let thing = try await client.thing("sensor-3")
            let other = try #require(
                try await client.call(
                    .post, "\(client.app)/oauth2/token", contentType: "application/json",
                    body: #"{"username":"VENDOR_THING_ID:sensor-3","password":"thing-password"}"#
                ).string("access_token"))
            let path = "\(client.app)/things/\(thing.id)"
            let changed = try await client.call(
                .put, "\(path)/password", token: thing.token,
                contentType: "application/vnd.kii.ChangeThingPasswordRequest+json",
                body: #"{"newPassword":"new-thing-password"}"#)
            #expect(changed.status == .noContent)
            #expect(try await client.call(.get, path, token: other).errorCode == "WRONG_TOKEN")
            #expect(try await client.call(.get, path, token: thing.token).status == .ok)

            #expect(try await client.call(.delete, path, token: thing.token).status == .noContent)
            #expect(try await client.call(.get, path, token: thing.token).errorCode == "WRONG_TOKEN")
            let admin = try await client.adminToken()
            let gone = try await client.call(.get, path, token: admin)
            #expect(gone.status == .notFound)
            #expect(gone.errorCode == "THING_NOT_FOUND")
            #expect(gone.string("field") == "thingID")
        }
    }

    @Test("Thing-IF onboarding by owner registers the thing, sets the owner and returns its token")
    func onboardingByOwner() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let onboarded = try await client.call(
                .post, "/thing-if/apps/\(server.app.id.rawValue)/onboardings", token: owner.token,
                contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
                json: [
                    "vendorThingID": "air-1", "thingPassword": "thing-password", "owner": .string("user:\(owner.id)"),
                    "thingType": "aircon", "firmwareVersion": "v1", "layoutPosition": "STANDALONE",
                    "thingProperties": ["_vendor": "acme", "floor": 3],
                ])
            #expect(onboarded.status == .ok)
            let thingID = try #require(onboarded.string("thingID"))
            let thingToken = try #require(onboarded.string("accessToken"))
            let read = try await client.call(.get, "\(client.app)/things/\(thingID)", token: owner.token)
            #expect(read.string("_thingType") == "aircon")
            #expect(read.string("_vendor") == "acme")
            #expect(read.object["floor"] == 3)
            #expect(try await client.call(.get, "\(client.app)/things/\(thingID)", token: thingToken).status == .ok)

            // Again with the thing ID and Go's lower-case media type: same thing, owner kept.
            let second = try await client.pseudoUser()
            let byID = try await client.call(
                .post, "/thing-if/apps/\(server.app.id.rawValue)/onboardings", token: second.token,
                contentType: "application/vnd.kii.onboardingWithThingIDByOwner+json",
                json: [
                    "thingID": .string(thingID), "thingPassword": "thing-password",
                    "owner": .string("USER:\(second.id)"),
                ])
            #expect(byID.status == .ok)
            #expect(byID.string("thingID") == thingID)
            #expect(try await client.call(.get, "\(client.app)/things/\(thingID)", token: second.token).status == .ok)
        }
    }

    @Test("Onboarding refuses a wrong password, another user as owner, and unknown media types")
    func onboardingRefusals() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let other = try await client.pseudoUser()
            _ = try await client.thing("air-2")
            let onboardings = "/thing-if/apps/\(server.app.id.rawValue)/onboardings"
            let vendorType = "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json"
            let wrongPassword = try await client.call(
                .post, onboardings, token: owner.token, contentType: vendorType,
                json: [
                    "vendorThingID": "air-2", "thingPassword": "wrong-password", "owner": .string("user:\(owner.id)"),
                ])
            #expect(wrongPassword.errorCode == "WRONG_PASSWORD")
            let forOther = try await client.call(
                .post, onboardings, token: owner.token, contentType: vendorType,
                json: [
                    "vendorThingID": "air-2", "thingPassword": "thing-password", "owner": .string("user:\(other.id)"),
                ])
            #expect(forOther.status == .forbidden)
            let badOwner = try await client.call(
                .post, onboardings, token: owner.token, contentType: vendorType,
                json: ["vendorThingID": "air-2", "thingPassword": "thing-password", "owner": .string(owner.id)])
            #expect(badOwner.errorCode == "INVALID_INPUT_DATA")
            let unknownType = try await client.call(
                .post, onboardings, token: owner.token, contentType: "application/json",
                json: [
                    "vendorThingID": "air-2", "thingPassword": "thing-password", "owner": .string("user:\(owner.id)"),
                ])
            #expect(unknownType.status == .unsupportedMediaType)
            let byThing = try await client.call(
                .post, onboardings, contentType: "application/vnd.kii.OnboardingWithVendorThingIDByThing+json",
                body: #"{"vendorThingID":"air-3","thingPassword":"thing-password","thingType":"aircon"}"#)
            #expect(byThing.status == .ok)
            #expect(byThing.string("accessToken") != nil)
        }
    }
}
