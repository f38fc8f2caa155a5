import HTTPTypes
import TestSupport
import Testing
import TopicGateCore

/// Thing-IF v2 traits as Kii's SDKs send them: states per alias (all at once, one alias, read
/// back each way, a history per alias), one form per thing, commands grouped by alias, and
/// results in both shapes the SDKs send.
@Suite("Traits over HTTP")
struct TraitRoutesTests {
    /// A thing onboarded by a new owner: the owner, the thing, the Thing-IF target path.
    static func thing(_ client: TestServer.Client, _ vendorThingID: String) async throws
        -> (owner: (id: String, token: String), thing: (id: String, token: String), target: String)
    {
        let owner = try await client.pseudoUser()
        let reply = try await client.call(
            .post, "/thing-if/apps/\(client.appID)/onboardings", token: owner.token,
            contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
            json: [
                "vendorThingID": .string(vendorThingID), "thingPassword": "dummyPass", "thingType": "AirConditioner",
                "firmwareVersion": "v2", "owner": .string("user:\(owner.id)"),
            ]
        ).expect(.ok)
        let id = try reply.require("thingID")
        return (owner, (id, try reply.require("accessToken")), "/thing-if/apps/\(client.appID)/targets/thing:\(id)")
    }

    @Test(
        "States per alias: all aliases at once and one alias, read back whole and by alias, each alias's own history; a plain state after traits is refused"
    )
    func states() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let (owner, thing, target) = try await Self.thing(client, "aircon-1")
            try await client.call(
                .put, "\(target)/states", token: thing.token,
                contentType: "application/vnd.kii.MultipleTraitState+json",
                json: ["AirConditionerAlias": ["power": true, "temperature": 23], "HumidityAlias": ["humidity": 40]]
            ).expect(.noContent)
            try await client.call(
                .put, "\(target)/states/aliases/HumidityAlias", token: thing.token,
                contentType: "application/vnd.kii.TraitState+json", json: ["humidity": 45]
            ).expect(.noContent)
            let all = try await client.call(.get, "\(target)/states", token: owner.token).expect(.ok)
            #expect(
                all.object == [
                    "AirConditionerAlias": ["power": true, "temperature": 23], "HumidityAlias": ["humidity": 45],
                ])
            let one = try await client.call(.get, "\(target)/states/aliases/AirConditionerAlias", token: owner.token)
                .expect(.ok)
            #expect(one.object == ["power": true, "temperature": 23])
            let unknown = try await client.call(.get, "\(target)/states/aliases/NoSuchAlias", token: owner.token)
            #expect(unknown.errorCode == "STATE_NOT_FOUND")

            let humidity = try await client.call(
                .get, "\(target)/states/aliases/HumidityAlias/history", token: owner.token
            ).expect(.ok)
            let values = (humidity.object["states"]?.arrayValue ?? []).compactMap {
                $0.objectValue?["state"]?.objectValue?["humidity"]?.intValue
            }
            #expect(values == [40, 45])
            let whole = try await client.call(.get, "\(target)/states/history", token: owner.token).expect(.ok)
            #expect(whole.object["states"]?.arrayValue?.count == 3)
            #expect(
                whole.object["states"]?.arrayValue?.last?.objectValue?["state"] == ["HumidityAlias": ["humidity": 45]])

            let plain = try await client.call(
                .put, "\(target)/states", token: thing.token, contentType: "application/json", json: ["power": false])
            #expect(plain.status == .badRequest)
            #expect(plain.errorCode == "INVALID_INPUT_DATA")
            for (body, alias) in [(#"{"AirConditionerAlias":5}"#, "states"), (#"{"bad alias":{"a":1}}"#, "states")] {
                let refused = try await client.call(
                    .put, "\(target)/\(alias)", token: thing.token,
                    contentType: "application/vnd.kii.MultipleTraitState+json", body: body)
                #expect(refused.errorCode == "INVALID_INPUT_DATA", "\(body)")
            }
            let empty = try await client.call(
                .put, "\(target)/states/aliases/HumidityAlias", token: thing.token,
                contentType: "application/vnd.kii.TraitState+json", body: "{}")
            #expect(empty.errorCode == "EMPTY_BODY")
        }
    }

    @Test("A plain thing keeps the plain form, and may move to traits")
    func plainThing() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let (owner, thing, target) = try await Self.thing(client, "plain-1")
            try await client.call(
                .put, "\(target)/states", token: thing.token, contentType: "application/json", json: ["power": true]
            ).expect(.noContent)
            #expect(try await client.call(.get, "\(target)/states", token: owner.token).object == ["power": true])
            try await client.call(
                .put, "\(target)/states", token: thing.token,
                contentType: "application/vnd.kii.MultipleTraitState+json",
                json: ["PowerAlias": ["power": false]]
            ).expect(.noContent)
            #expect(
                try await client.call(.get, "\(target)/states", token: owner.token).object == [
                    "PowerAlias": ["power": false]
                ])
        }
    }

    @Test(
        "Commands grouped by alias; a command mixing grouped and flat actions is refused; flat results of a trait command (the older C SDK's) are stored grouped by alias; flat actions may take arrays"
    )
    func commandsAndResults() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let (owner, thing, target) = try await Self.thing(client, "aircon-2")
            let media = "application/vnd.kii.CommandCreationRequest+json"
            let mixed = try await client.call(
                .post, "\(target)/commands", token: owner.token, contentType: media,
                json: [
                    "actions": [["AirConditionerAlias": [["turnPower": true]]], ["setColor": [255, 0, 0]]],
                    "issuer": .string("user:\(owner.id)"),
                ])
            #expect(mixed.errorCode == "INVALID_INPUT_DATA")
            let flat = try await client.call(
                .post, "\(target)/commands", token: owner.token, contentType: "application/json",
                json: [
                    "actions": [["setColor": [255, 0, 0]]], "schema": "Lamp", "schemaVersion": 1,
                    "issuer": .string("user:\(owner.id)"),
                ])
            #expect(flat.status == .created)

            let commandID = try await client.call(
                .post, "\(target)/commands", token: owner.token, contentType: media,
                json: [
                    "actions": [
                        ["AirConditionerAlias": [["turnPower": true], ["setPresetTemperature": 25]]],
                        ["HumidityAlias": [["setPresetHumidity": 45]]],
                    ],
                    "issuer": .string("user:\(owner.id)"),
                ]
            ).expect(.created).require("commandID")
            let before = try await client.call(.get, "\(target)/commands/\(commandID)", token: owner.token)
            #expect(before.object["actionResults"] == nil)
            try await client.call(
                .put, "\(target)/commands/\(commandID)/action-results", token: thing.token,
                contentType: "application/json",
                json: [
                    "actionResults": [
                        ["turnPower": ["succeeded": true]], ["setPresetTemperature": ["succeeded": true]],
                        ["setPresetHumidity": ["succeeded": false, "errorMessage": "tank empty"]],
                    ]
                ]
            ).expect(.noContent)
            let after = try await client.call(.get, "\(target)/commands/\(commandID)", token: owner.token)
            #expect(
                after.object["actionResults"] == [
                    [
                        "AirConditionerAlias": [
                            ["turnPower": ["succeeded": true]], ["setPresetTemperature": ["succeeded": true]],
                        ]
                    ],
                    ["HumidityAlias": [["setPresetHumidity": ["succeeded": false, "errorMessage": "tank empty"]]]],
                ])
            #expect(after.string("commandState") == "INCOMPLETE")
            let stranger = try await client.call(
                .put, "\(target)/commands/\(commandID)/action-results", token: thing.token,
                contentType: "application/json", json: ["actionResults": [["selfDestruct": ["succeeded": true]]]])
            #expect(stranger.errorCode == "INVALID_INPUT_DATA")
        }
    }
}
