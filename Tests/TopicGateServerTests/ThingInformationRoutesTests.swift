import HTTPTypes
import TestSupport
import Testing
import TopicGateCore

/// A thing's vendor thing ID (changed with a new password, as a replaced device takes over a
/// thing), and Thing-IF's thing type and firmware version, as Kii's SDKs call them.
@Suite("Vendor thing ID, thing type and firmware version over HTTP")
struct ThingInformationRoutesTests {
    @Test(
        "An owner changes the vendor thing ID and password: the new pair logs in, the old does not, the thing's old token is revoked; a taken ID is THING_ALREADY_EXISTS; others are refused"
    )
    func vendorThingID() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let stranger = try await client.pseudoUser()
            let thing = try await client.thing("old-device", password: "old-pass")
            try await client.call(
                .post, "\(client.app)/things/\(thing.id)/ownership", token: owner.token,
                contentType: "application/vnd.kii.ThingOwnershipRequest+json",
                json: ["thingPassword": "old-pass", "userID": .string(owner.id)]
            ).expect(.noContent)
            _ = try await client.thing("taken", password: "p")
            let path = "\(client.app)/things/\(thing.id)/vendor-thing-id"
            let media = "application/vnd.kii.VendorThingIDUpdateRequest+json"
            let taken = try await client.call(
                .put, path, token: owner.token, contentType: media,
                json: ["_vendorThingID": "taken", "_password": "new-pass"])
            #expect(taken.status == .conflict)
            #expect(taken.errorCode == "THING_ALREADY_EXISTS")
            let refused = try await client.call(
                .put, path, token: stranger.token, contentType: media,
                json: ["_vendorThingID": "stolen", "_password": "new-pass"])
            #expect(refused.status == .forbidden)
            let missing = try await client.call(
                .put, path, token: owner.token, contentType: media, json: ["_vendorThingID": "new-device"])
            #expect(missing.errorCode == "INVALID_INPUT_DATA")

            try await client.call(
                .put, path, token: owner.token, contentType: media,
                json: ["_vendorThingID": "new-device", "_password": "new-pass"]
            ).expect(.noContent)
            let read = try await client.call(.get, path, token: owner.token).expect(.ok)
            #expect(read.string("_vendorThingID") == "new-device")
            _ = try await client.login("VENDOR_THING_ID:new-device", password: "new-pass")
            let old = try await client.call(
                .post, "\(client.app)/oauth2/token",
                json: ["username": "VENDOR_THING_ID:old-device", "password": "old-pass"])
            #expect(old.status == .badRequest)
            #expect(
                try await client.call(.get, "\(client.app)/things/\(thing.id)", token: thing.token).status == .forbidden
            )
            let unknown = try await client.call(
                .put, "\(client.app)/things/th.nosuchthing/vendor-thing-id", token: owner.token, contentType: media,
                json: ["_vendorThingID": "x", "_password": "y"])
            #expect(unknown.errorCode == "THING_NOT_FOUND")
        }
    }

    @Test(
        "Thing type set once (409 to change it), firmware version set and changed, Thing-IF's 404s before either is set; the thing's own token works; others are refused"
    )
    func typeAndFirmware() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let reply = try await client.call(
                .post, "\(client.app)/things",
                contentType: "application/vnd.kii.ThingRegistrationAndAuthorizationRequest+json",
                json: ["_vendorThingID": "bare", "_password": "p"]
            ).expect(.created)
            let (id, token) = (try reply.require("_thingID"), try reply.require("_accessToken"))
            let stranger = try await client.pseudoUser()
            let base = "/thing-if/apps/\(client.appID)/things/\(id)"
            let noType = try await client.call(.get, "\(base)/thing-type", token: token)
            #expect(noType.status == .notFound)
            #expect(noType.errorCode == "THING_WITHOUT_THING_TYPE")
            let noFirmware = try await client.call(.get, "\(base)/firmware-version", token: token)
            #expect(noFirmware.errorCode == "THING_WITHOUT_FIRMWARE_VERSION")

            let typeMedia = "application/vnd.kii.ThingTypeUpdateRequest+json"
            try await client.call(
                .put, "\(base)/thing-type", token: token, contentType: typeMedia, json: ["thingType": "lamp"]
            )
            .expect(.noContent)
            try await client.call(
                .put, "\(base)/thing-type", token: token, contentType: typeMedia, json: ["thingType": "lamp"]
            )
            .expect(.noContent)
            let changed = try await client.call(
                .put, "\(base)/thing-type", token: token, contentType: typeMedia, json: ["thingType": "fan"])
            #expect(changed.status == .conflict)
            #expect(try await client.call(.get, "\(base)/thing-type", token: token).string("thingType") == "lamp")

            let firmwareMedia = "application/vnd.kii.ThingFirmwareVersionUpdateRequest+json"
            for version in ["1.0", "1.1"] {
                try await client.call(
                    .put, "\(base)/firmware-version", token: token, contentType: firmwareMedia,
                    json: ["firmwareVersion": .string(version)]
                ).expect(.noContent)
                let read = try await client.call(.get, "\(base)/firmware-version", token: token).expect(.ok)
                #expect(read.string("firmwareVersion") == version)
            }
            let thing = try await client.call(.get, "\(client.app)/things/\(id)", token: token).expect(.ok)
            #expect(thing.string("_thingType") == "lamp")
            #expect(thing.string("_firmwareVersion") == "1.1")
            #expect(try await client.call(.get, "\(base)/thing-type", token: stranger.token).status == .forbidden)
            let strangers = try await client.call(
                .put, "\(base)/firmware-version", token: stranger.token, contentType: firmwareMedia,
                json: ["firmwareVersion": "6.6.6"])
            #expect(strangers.status == .forbidden)
            let empty = try await client.call(
                .put, "\(base)/firmware-version", token: token, contentType: firmwareMedia,
                json: ["firmwareVersion": ""])
            #expect(empty.errorCode == "INVALID_INPUT_DATA")
        }
    }
}
