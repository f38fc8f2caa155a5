import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore
import TopicGateServer

/// Thing-IF triggers over HTTP as Kii's Thing-IF SDKs' large tests drive them (TIF-JS
/// `APIAuthorTriggerTest`, Android's `TriggerTest`): create, read, change, enable and disable,
/// list a page at a time, delete; STATES triggers that fire on states reported over HTTP.
@Suite("Thing-IF triggers over HTTP")
struct TriggerRoutesTests {
    /// A thing onboarded by `owner` (trait form), its ID and token.
    static func thing(_ client: TestServer.Client, _ vendorThingID: String, owner: (id: String, token: String))
        async throws -> (id: String, token: String)
    {
        let reply = try await client.call(
            .post, "/thing-if/apps/\(client.appID)/onboardings", token: owner.token,
            contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
            json: [
                "vendorThingID": .string(vendorThingID), "thingPassword": "thing-pass",
                "owner": .string("user:\(owner.id)"), "thingType": "MyAirConditioner", "firmwareVersion": "v1",
            ]
        ).expect(.ok)
        return (try reply.require("thingID"), try reply.require("accessToken"))
    }

    static func powerOn(_ when: String) -> JSONValue {
        [
            "eventSource": "STATES", "triggersWhen": .string(when),
            "condition": ["type": "eq", "alias": "AirConditionerAlias", "field": "power", "value": true],
        ]
    }

    static func command(issuer: String, target: String? = nil) -> JSONValue {
        var command: [String: JSONValue] = [
            "issuer": .string("user:\(issuer)"), "actions": [["AirConditionerAlias": [["turnPower": true]]]],
        ]
        if let target { command["target"] = .string("thing:\(target)") }
        return .object(command)
    }

    /// Posts a COMMAND trigger to the thing whose Thing-IF target path is `target`, with `token`,
    /// firing `command` when `predicate` holds; Kii's reply as it came.
    static func createTrigger(
        _ client: TestServer.Client, _ target: String, token: String, predicate: JSONValue, command: JSONValue
    ) async throws -> APIReply {
        try await client.call(
            .post, "\(target)/triggers", token: token,
            json: ["triggersWhat": "COMMAND", "predicate": predicate, "command": command])
    }

    @Test(
        "Create, read, change, enable and disable, list a page at a time, delete; Kii's bodies and status codes"
    )
    func lifecycle() async throws {
        let server = try await TestServer.make(push: true)
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let lamp = try await Self.thing(client, "ac-1", owner: owner)
            let base = "/thing-if/apps/\(client.appID)/targets/thing:\(lamp.id)/triggers"
            let created = try await client.call(
                .post, base, token: owner.token,
                json: [
                    "triggersWhat": "COMMAND", "predicate": Self.powerOn("CONDITION_TRUE"),
                    "command": Self.command(issuer: owner.id, target: lamp.id), "title": "Power",
                    "description": "When it powers on", "metadata": ["color": "red"],
                ]
            ).expect(.created)
            let id = try created.require("triggerID")
            let read = try await client.call(.get, "\(base)/\(id)", token: owner.token).expect(.ok)
            #expect(read.string("triggerID") == id)
            #expect(read.object["predicate"] == Self.powerOn("CONDITION_TRUE"))
            #expect(read.string("triggersWhat") == "COMMAND")
            #expect(read.object["disabled"] == false)
            #expect(read.object["disabledReason"] == nil)
            #expect(read.string("title") == "Power")
            #expect(read.object["metadata"] == ["color": "red"])
            let command = try #require(read.object["command"]?.objectValue)
            #expect(command["target"] == .string("thing:\(lamp.id)"))
            #expect(command["issuer"] == .string("user:\(owner.id)"))
            #expect(command["actions"] == [["AirConditionerAlias": [["turnPower": true]]]])
            for absent in ["commandID", "commandState", "firedByTriggerID", "createdAt", "modifiedAt", "actionResults"]
            {
                #expect(command[absent] == nil, "\(absent)")
            }

            // Disabled stays disabled through a change; the members not sent keep their values.
            for _ in 0..<2 {
                try await client.call(.put, "\(base)/\(id)/disable", token: owner.token).expect(.noContent)
            }
            try await client.call(
                .patch, "\(base)/\(id)", token: owner.token,
                json: ["predicate": Self.powerOn("CONDITION_CHANGED"), "triggersWhat": "COMMAND"]
            ).expect(.noContent)
            let changed = try await client.call(.get, "\(base)/\(id)", token: owner.token).expect(.ok)
            #expect(changed.object["predicate"] == Self.powerOn("CONDITION_CHANGED"))
            #expect(changed.object["disabled"] == true)
            #expect(changed.string("title") == "Power")
            #expect(changed.string("description") == "When it powers on")
            for _ in 0..<2 {
                try await client.call(.put, "\(base)/\(id)/enable", token: owner.token).expect(.noContent)
            }
            #expect(try await client.call(.get, "\(base)/\(id)", token: owner.token).object["disabled"] == false)
            #expect(
                try await client.call(.get, "\(base)/\(id)/results/server-code", token: owner.token).expect(.ok)
                    .object["triggerServerCodeResults"] == .array([]))

            // A fresh list, then four a page of one at a time.
            var ids = [id]
            for index in 0..<3 {
                ids.append(
                    try await client.call(
                        .post, base, token: lamp.token,
                        json: [
                            "triggersWhat": "COMMAND", "predicate": Self.powerOn("CONDITION_TRUE"),
                            "command": Self.command(issuer: owner.id), "title": .string("t\(index)"),
                        ]
                    ).expect(.created).require("triggerID"))
            }
            var listed: [String] = []
            var key: String?
            repeat {
                let page = try await client.call(
                    .get, "\(base)?bestEffortLimit=1" + (key.map { "&paginationKey=\($0)" } ?? ""), token: owner.token
                ).expect(.ok)
                listed += (page.object["triggers"]?.arrayValue ?? []).compactMap {
                    $0.objectValue?["triggerID"]?.stringValue
                }
                key = page.string("nextPaginationKey")
            } while key != nil
            #expect(listed.sorted() == ids.sorted())
            let whole = try await client.call(.get, base, token: owner.token).expect(.ok)
            #expect(whole.object["triggers"]?.arrayValue?.count == 4)
            #expect(whole.object["nextPaginationKey"] == nil)

            try await client.call(.delete, "\(base)/\(id)", token: owner.token).expect(.noContent)
            for (method, path) in [
                (HTTPRequest.Method.get, "\(base)/\(id)"), (.delete, "\(base)/\(id)"),
                (.put, "\(base)/\(id)/enable"), (.patch, "\(base)/\(id)"),
            ] {
                let gone = try await client.call(method, path, token: owner.token, json: ["title": "x"])
                #expect(gone.status == .notFound, "\(method) \(path)")
                #expect(gone.errorCode == "TRIGGER_NOT_FOUND")
            }
        }
    }

    @Test(
        "Refused: a bad cron or clause (WRONG_PREDICATE), server code (WRONG_TRIGGER), a stranger, a target the issuer does not own and one that does not exist alike, timed triggers until the admin allows them, past the per-thing cap"
    )
    func refusals() async throws {
        let server = try await TestServer.make(push: true) { $0.abuse.triggersPerThing = 3 }
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let stranger = try await client.pseudoUser()
            let lamp = try await Self.thing(client, "ac-2", owner: owner)
            let theirs = try await Self.thing(client, "ac-3", owner: stranger)
            let base = "/thing-if/apps/\(client.appID)/targets/thing:\(lamp.id)/triggers"
            func create(
                _ predicate: JSONValue, command: JSONValue? = nil, token: String? = nil, what: String = "COMMAND"
            )
                async throws -> APIReply
            {
                try await client.call(
                    .post, base, token: token ?? owner.token,
                    json: [
                        "triggersWhat": .string(what), "predicate": predicate,
                        "command": command ?? Self.command(issuer: owner.id),
                    ])
            }
            let cron = try await create(["eventSource": "SCHEDULE", "schedule": "wrong format"])
            #expect(cron.status == .badRequest)
            #expect(cron.errorCode == "WRONG_PREDICATE")
            #expect(cron.string("message") == "Value for 'schedule' field is incorrect")
            let clause = try await create([
                "eventSource": "STATES", "triggersWhen": "CONDITION_TRUE", "condition": ["type": "sometimes"],
            ])
            #expect(clause.errorCode == "WRONG_PREDICATE")
            let serverCode = try await create(Self.powerOn("CONDITION_TRUE"), what: "SERVER_CODE")
            #expect(serverCode.status == .badRequest)
            #expect(serverCode.errorCode == "WRONG_TRIGGER")
            #expect(try await create(Self.powerOn("CONDITION_TRUE"), token: stranger.token).status == .forbidden)
            let elsewhere = try await create(
                Self.powerOn("CONDITION_TRUE"), command: Self.command(issuer: owner.id, target: theirs.id))
            #expect(elsewhere.status == .forbidden)
            // A target that does not exist answers as a stranger's: no trigger tells which IDs
            // exist. The admin hears which.
            let nowhere = try await create(
                Self.powerOn("CONDITION_TRUE"), command: Self.command(issuer: owner.id, target: "th.nowhere"))
            #expect(nowhere.status == elsewhere.status)
            #expect(nowhere.errorCode == elsewhere.errorCode)
            #expect(
                nowhere.string("message")?.replacingOccurrences(of: "th.nowhere", with: theirs.id)
                    == elsewhere.string("message"))
            let toNowhere = try await create(
                Self.powerOn("CONDITION_TRUE"), command: Self.command(issuer: owner.id, target: "th.nowhere"),
                token: try await client.adminToken())
            #expect(toNowhere.status == .badRequest)
            #expect(toNowhere.errorCode == "WRONG_TRIGGER")
            let asOther = try await create(Self.powerOn("CONDITION_TRUE"), command: Self.command(issuer: stranger.id))
            #expect(asOther.status == .forbidden)

            // Timed triggers: the admin's, until the app's allowCreateTaskByPrincipal is true.
            let once: JSONValue = [
                "eventSource": "SCHEDULE_ONCE",
                "scheduleAt": .int(Int64(Date().timeIntervalSince1970 * 1000) + 3_600_000),
            ]
            #expect(try await create(once).status == .forbidden)
            let admin = try await client.adminToken()
            let parameter = "\(client.app)/configuration/parameters/allowCreateTaskByPrincipal"
            #expect(
                try await client.call(.put, parameter, token: owner.token, contentType: "text/plain", body: "true")
                    .status == .forbidden)
            try await client.call(.put, parameter, token: admin, contentType: "text/plain", body: "true").expect(
                .noContent)
            #expect(try await client.call(.get, parameter, token: admin).object["allowCreateTaskByPrincipal"] == "true")
            try await create(once).expect(.created)
            try await create(["eventSource": "SCHEDULE", "schedule": "* 1 * * *"]).expect(.created)
            try await create(Self.powerOn("CONDITION_TRUE"), token: admin).expect(.created)
            let capped = try await create(Self.powerOn("CONDITION_TRUE"))
            #expect(capped.status == .forbidden)
            #expect(capped.errorCode == "QUOTA_EXCEEDED")
        }
    }

    @Test(
        "A STATES trigger fires on the states reported over HTTP: false-to-true once per change, true on every true state, changed on every change; an alias it does not read fires nothing; the fired command names its trigger and issuer and may target another thing"
    )
    func firesOnStates() async throws {
        let server = try await TestServer.make(push: true)
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let sensor = try await Self.thing(client, "sensor-1", owner: owner)
            let heater = try await Self.thing(client, "heater-1", owner: owner)
            let base = "/thing-if/apps/\(client.appID)/targets/thing:\(sensor.id)"
            var triggers: [String: String] = [:]
            for when in ["CONDITION_FALSE_TO_TRUE", "CONDITION_TRUE", "CONDITION_CHANGED"] {
                triggers[when] = try await Self.createTrigger(
                    client, base, token: owner.token, predicate: Self.powerOn(when),
                    command: Self.command(issuer: owner.id, target: heater.id)
                ).expect(.created).require("triggerID")
            }
            func report(_ alias: String, _ state: JSONValue) async throws {
                try await client.call(
                    .put, "\(base)/states", token: sensor.token,
                    contentType: "application/vnd.kii.MultipleTraitState+json", json: [alias: state]
                ).expect(.noContent)
            }
            func fired() async throws -> [String: Int] {
                let listed = try await client.call(
                    .get, "/thing-if/apps/\(client.appID)/targets/thing:\(heater.id)/commands", token: owner.token
                ).expect(.ok)
                var counts: [String: Int] = [:]
                for command in listed.object["commands"]?.arrayValue ?? [] {
                    let object = command.objectValue ?? [:]
                    #expect(object["issuer"] == .string("user:\(owner.id)"))
                    #expect(object["target"] == .string("thing:\(heater.id)"))
                    #expect(object["commandState"] == "SENDING")
                    let trigger = object["firedByTriggerID"]?.stringValue ?? "none"
                    let when = triggers.first { $0.value == trigger }?.key ?? trigger
                    counts[when, default: 0] += 1
                }
                return counts
            }
            let sequence: [Bool] = [false, true, true, false, true]
            var expected: [String: Int] = [:]
            var previous = false
            for power in sequence {
                try await report("AirConditionerAlias", ["power": .bool(power), "currentTemperature": 25])
                if power { expected["CONDITION_TRUE", default: 0] += 1 }
                if power && !previous { expected["CONDITION_FALSE_TO_TRUE", default: 0] += 1 }
                if power != previous { expected["CONDITION_CHANGED", default: 0] += 1 }
                previous = power
                #expect(try await fired() == expected, "after power \(power)")
            }
            // A state of another alias leaves the condition as it was: nothing fires.
            try await report("HumidityAlias", ["currentHumidity": 40])
            #expect(try await fired() == expected)
            // One alias's state reported on its own path fires as the whole state does.
            for power in [false, true] {
                try await client.call(
                    .put, "\(base)/states/aliases/AirConditionerAlias", token: sensor.token,
                    contentType: "application/vnd.kii.TraitState+json", json: ["power": .bool(power)]
                ).expect(.noContent)
            }
            expected["CONDITION_TRUE", default: 0] += 1
            expected["CONDITION_FALSE_TO_TRUE", default: 0] += 1
            expected["CONDITION_CHANGED", default: 0] += 2
            #expect(try await fired() == expected)
        }
    }

    @Test(
        "A trigger whose issuer no longer owns its target does not fire, and says why; re-enabled and owner again, it fires; a disabled issuer's trigger does not fire"
    )
    func issuerLosesTheRight() async throws {
        let server = try await TestServer.make(push: true)
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let sensor = try await Self.thing(client, "sensor-2", owner: owner)
            let heater = try await Self.thing(client, "heater-2", owner: owner)
            let base = "/thing-if/apps/\(client.appID)/targets/thing:\(sensor.id)"
            let trigger = try await Self.createTrigger(
                client, base, token: owner.token, predicate: Self.powerOn("CONDITION_TRUE"),
                command: Self.command(issuer: owner.id, target: heater.id)
            ).expect(.created).require("triggerID")
            let ownership = "\(client.app)/things/\(heater.id)/ownership/user:\(owner.id)"
            try await client.call(.delete, ownership, token: owner.token).expect(.noContent)
            try await client.call(
                .put, "\(base)/states", token: sensor.token,
                contentType: "application/vnd.kii.MultipleTraitState+json",
                json: ["AirConditionerAlias": ["power": true]]
            ).expect(.noContent)
            let admin = try await client.adminToken()
            let commands = "/thing-if/apps/\(client.appID)/targets/thing:\(heater.id)/commands"
            #expect(
                try await client.call(.get, commands, token: admin).expect(.ok).object["commands"] == .array([]))
            let read = try await client.call(.get, "\(base)/triggers/\(trigger)", token: owner.token).expect(.ok)
            #expect(read.object["disabled"] == true)
            #expect(read.string("disabledReason")?.hasPrefix("COMMAND_EXECUTION_REJECTED") == true)
            #expect(read.string("disabledReason")?.contains(owner.id) == true)

            try await client.call(.put, ownership, token: admin).expect(.noContent)
            try await client.call(.put, "\(base)/triggers/\(trigger)/enable", token: owner.token).expect(.noContent)
            #expect(
                try await client.call(.get, "\(base)/triggers/\(trigger)", token: owner.token).object["disabledReason"]
                    == nil)
            try await client.call(
                .put, "\(base)/states", token: sensor.token,
                contentType: "application/vnd.kii.MultipleTraitState+json",
                json: ["AirConditionerAlias": ["power": true]]
            ).expect(.noContent)
            let listed = try await client.call(.get, commands, token: owner.token).expect(.ok)
            #expect(listed.object["commands"]?.arrayValue?.count == 1)

            // A disabled issuer commands nothing either.
            try await client.call(
                .put, "\(client.app)/users/\(owner.id)/status", token: admin, json: ["disabled": true]
            ).expect(.noContent)
            try await client.call(
                .put, "\(base)/states", token: sensor.token,
                contentType: "application/vnd.kii.MultipleTraitState+json",
                json: ["AirConditionerAlias": ["power": true]]
            ).expect(.noContent)
            #expect(
                try await client.call(.get, commands, token: admin).expect(.ok).object["commands"]?.arrayValue?.count
                    == 1)
            let disabled = try await client.call(.get, "\(base)/triggers/\(trigger)", token: admin).expect(.ok)
            #expect(disabled.object["disabled"] == true)
            #expect(disabled.string("disabledReason")?.contains("is disabled") == true)
        }
    }

    @Test(
        "A trigger commands another thing only as an owner of both: a thing's own token cannot aim one at a stranger's thing, nor can the admin; one whose issuer leaves the watched thing stops firing and says why"
    )
    func anotherThingOnlyAsOwnerOfBoth() async throws {
        let server = try await TestServer.make(push: true)
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let stranger = try await client.pseudoUser()
            let lamp = try await Self.thing(client, "ac-6", owner: owner)
            let theirs = try await Self.thing(client, "ac-7", owner: stranger)
            let admin = try await client.adminToken()
            let base = "/thing-if/apps/\(client.appID)/targets/thing:\(lamp.id)"
            let theirCommands = "/thing-if/apps/\(client.appID)/targets/thing:\(theirs.id)/commands"
            for token in [lamp.token, admin] {
                let aimed = try await Self.createTrigger(
                    client, base, token: token, predicate: Self.powerOn("CONDITION_TRUE"),
                    command: Self.command(issuer: stranger.id, target: theirs.id))
                #expect(aimed.status == .forbidden)
                #expect(aimed.errorCode == "UNAUTHORIZED")
            }
            // Nor by changing a trigger of its own into one.
            let own = try await Self.createTrigger(
                client, base, token: lamp.token, predicate: Self.powerOn("CONDITION_TRUE"),
                command: Self.command(issuer: owner.id)
            ).expect(.created).require("triggerID")
            let changed = try await client.call(
                .patch, "\(base)/triggers/\(own)", token: lamp.token,
                json: ["command": Self.command(issuer: stranger.id, target: theirs.id)])
            #expect(changed.status == .forbidden)
            try await client.call(
                .put, "\(base)/states", token: lamp.token, contentType: "application/vnd.kii.MultipleTraitState+json",
                json: ["AirConditionerAlias": ["power": true]]
            ).expect(.noContent)
            #expect(
                try await client.call(.get, theirCommands, token: stranger.token).expect(.ok).object["commands"]
                    == .array([]))

            // Made by the owner of both, then the owner leaves the watched thing (which the stranger
            // now owns): its states no longer command the owner's heater.
            let heater = try await Self.thing(client, "heater-6", owner: owner)
            let trigger = try await Self.createTrigger(
                client, base, token: owner.token, predicate: Self.powerOn("CONDITION_TRUE"),
                command: Self.command(issuer: owner.id, target: heater.id)
            ).expect(.created).require("triggerID")
            try await client.call(.put, "\(client.app)/things/\(lamp.id)/ownership/user:\(stranger.id)", token: admin)
                .expect(.noContent)
            try await client.call(.delete, "\(client.app)/things/\(lamp.id)/ownership/user:\(owner.id)", token: admin)
                .expect(.noContent)
            try await client.call(
                .put, "\(base)/states", token: lamp.token, contentType: "application/vnd.kii.MultipleTraitState+json",
                json: ["AirConditionerAlias": ["power": true]]
            ).expect(.noContent)
            let heaterCommands = "/thing-if/apps/\(client.appID)/targets/thing:\(heater.id)/commands"
            #expect(
                try await client.call(.get, heaterCommands, token: owner.token).expect(.ok).object["commands"]
                    == .array([]))
            let read = try await client.call(.get, "\(base)/triggers/\(trigger)", token: admin).expect(.ok)
            #expect(read.object["disabled"] == true)
            #expect(read.string("disabledReason")?.contains("whose trigger this is") == true)
        }
    }
}
