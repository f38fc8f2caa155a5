import Foundation
import HTTPTypes
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore

/// Triggers through the real executable: a state published over MQTT fires a command that
/// reaches the target thing's device, whose results reach only the issuer's phone; timed triggers
/// fire on time, once, also when they fell due while no gateway ran; and with two gateways on one
/// PostgreSQL, a state fires a trigger once and a schedule once per due time.
@Suite("Thing-IF triggers end to end", .serialized)
struct TriggerEndToEndTests {
    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    static func trigger(predicate: JSONValue, issuer: String, target: String) -> JSONValue {
        [
            "triggersWhat": "COMMAND", "predicate": predicate,
            "command": [
                "issuer": .string("user:\(issuer)"), "target": .string("thing:\(target)"),
                "actions": [["turnPower": ["power": true]]],
            ],
        ]
    }

    /// An owned thing registered through `api`, and a function that makes the admin create a
    /// trigger on it sending the thing a command as its owner.
    static func ownedThing(_ api: some KiiAPI, _ vendorThingID: String) async throws -> (
        thing: (id: String, token: String), owner: (id: String, token: String),
        create: @Sendable (JSONValue) async throws -> String
    ) {
        let admin = try await api.adminToken()
        let owner = try await api.pseudoUser()
        let thing = try await api.thing(vendorThingID, token: owner.token)
        try await api.call(.put, "\(api.app)/things/\(thing.id)/ownership/user:\(owner.id)", token: admin)
            .expect(.noContent)
        let triggers = "/thing-if/apps/\(api.appID)/targets/thing:\(thing.id)/triggers"
        return (
            thing, owner,
            { predicate in
                try await api.call(
                    .post, triggers, token: admin,
                    json: Self.trigger(predicate: predicate, issuer: owner.id, target: thing.id)
                ).expect(.created).require("triggerID")
            }
        )
    }

    /// Waits until a SCHEDULE_ONCE made now with `create`, due in `delay` ms, has fired on
    /// `thing`: the schedulers take due triggers in due order, so by then they have passed every
    /// time due before it (what did not fire for an earlier one is not still coming).
    static func schedulerPassed(
        _ api: some KiiAPI, thing: String, token: String, create: @Sendable (JSONValue) async throws -> String,
        delay: Int64 = 500
    ) async throws {
        let marker = try await create(["eventSource": "SCHEDULE_ONCE", "scheduleAt": .int(Self.now() + delay)])
        #expect(
            try await eventually(timeout: .milliseconds(delay) + .seconds(20)) {
                try await Self.fired(api, thing: thing, token: token)[marker] == 1
            }, "the scheduler did not run")
    }

    /// The commands of `thing` that its triggers fired, by trigger ID.
    static func fired(_ api: some KiiAPI, thing: String, token: String) async throws -> [String: Int] {
        let listed = try await api.call(
            .get, "/thing-if/apps/\(api.appID)/targets/thing:\(thing)/commands", token: token
        ).expect(.ok)
        var counts: [String: Int] = [:]
        for command in listed.object["commands"]?.arrayValue ?? [] {
            if let trigger = command.objectValue?["firedByTriggerID"]?.stringValue { counts[trigger, default: 0] += 1 }
        }
        return counts
    }

    @Test(
        "A state published over MQTT fires a trigger: the command reaches the target's device naming its trigger, and its results' commandID reaches the issuer's phone and no other"
    )
    func mqttStateFires() async throws {
        let world = try await PushWorld.started()
        let owner = try await world.pseudoUser()
        let stranger = try await world.pseudoUser()
        let sensor = try await world.onboardThing("sensor-e2e", owner: owner)
        let heater = try await world.onboardThing("heater-e2e", owner: owner)
        let phone = try await world.connectedDevice(try await world.install(token: owner.token))
        let strangerPhone = try await world.connectedDevice(try await world.install(token: stranger.token))
        let heaterDevice = try await world.connectedDevice(heater.endpoint)
        let sensorDevice = try await world.connectedDevice(sensor.endpoint)
        defer { for client in [phone, strangerPhone, heaterDevice, sensorDevice] { client.shutdown() } }
        let (phoneInbox, strangerInbox, heaterInbox) = (
            ReceivedMessages(phone), ReceivedMessages(strangerPhone), ReceivedMessages(heaterDevice)
        )
        let trigger = try await world.call(
            .post, "/thing-if/apps/\(world.appID)/targets/thing:\(sensor.id)/triggers", token: owner.token,
            json: Self.trigger(
                predicate: [
                    "eventSource": "STATES", "triggersWhen": "CONDITION_FALSE_TO_TRUE",
                    "condition": ["type": "range", "field": "temperature", "lowerLimit": 30, "lowerIncluded": false],
                ], issuer: owner.id, target: heater.id)
        ).expect(.created).require("triggerID")

        for temperature in [25, 31, 32] {
            try await sensorDevice.publish(
                sensor.endpoint.topic + "/state", payload: Array(#"{"temperature":\#(temperature)}"#.utf8))
        }
        let commands = await heaterInbox.wait(for: 1)
        let command = try #require(commands.first?.object)
        #expect(command["firedByTriggerID"] == .string(trigger))
        #expect(command["issuer"] == .string("user:\(owner.id)"))
        let commandID = try #require(command["commandID"]?.stringValue)
        // 31 then 32: one change from false to true, one command.
        let marker = try await world.marker(to: (heater.id, heater.token), kind: "things")
        #expect(await heaterInbox.before(marker: marker)?.count == 1)

        try await world.call(
            .put, "/thing-if/apps/\(world.appID)/targets/thing:\(heater.id)/commands/\(commandID)/action-results",
            token: heater.token, contentType: "application/vnd.kii.CommandResultsUpdateRequest+json",
            json: ["actionResults": [["turnPower": ["succeeded": true]]]]
        ).expect(.noContent)
        let results = await phoneInbox.wait(for: 1)
        #expect(results.compactMap { $0.object["commandID"]?.stringValue } == [commandID])
        let strangerMarker = try await world.marker(to: stranger)
        #expect(await strangerInbox.before(marker: strangerMarker) == [])
        try await world.stop()
    }

    @Test(
        "SCHEDULE_ONCE fires on time and once; one that fell due while the gateway was down fires once when it starts again"
    )
    func onceAndMissed() async throws {
        let directory = TestFolder.url.appendingPathComponent("tg-trig-\(UUID().uuidString)")
            .path
        let server = ServerProcess(dataDirectory: directory, arguments: ["--broker", "none"])
        try await server.start()
        let (thing, owner, create) = try await Self.ownedThing(server, "timer-e2e")
        func once(at time: Int64) async throws -> String {
            try await create(["eventSource": "SCHEDULE_ONCE", "scheduleAt": .int(time)])
        }
        let soon = try await once(at: Self.now() + 1500)
        #expect(
            try await eventually(timeout: .seconds(20)) {
                try await Self.fired(server, thing: thing.id, token: owner.token)[soon] == 1
            })
        // Due once: no second command once the scheduler has passed a later due time.
        try await Self.schedulerPassed(server, thing: thing.id, token: owner.token, create: create)
        #expect(try await Self.fired(server, thing: thing.id, token: owner.token)[soon] == 1)

        let due = Self.now() + 4000
        let missed = try await once(at: due)
        _ = try await server.stop(signal: SIGTERM)
        // Due while no gateway runs.
        #expect(Self.now() < due, "the gateway took longer to stop than the test allows")
        try await Task.sleep(for: .milliseconds(due + 1500 - Self.now()))
        try await server.start()
        #expect(
            try await eventually(timeout: .seconds(20)) {
                try await Self.fired(server, thing: thing.id, token: owner.token)[missed] == 1
            })
        try await Self.schedulerPassed(server, thing: thing.id, token: owner.token, create: create)
        let counts = try await Self.fired(server, thing: thing.id, token: owner.token)
        #expect(counts[soon] == 1)
        #expect(counts[missed] == 1)
        #expect(counts.count == 4, "\(counts)")
        _ = try await server.stop(signal: SIGTERM)
    }

    @Test(
        "Two gateways on one PostgreSQL: every state satisfying a CONDITION_TRUE trigger fires it once, through either; a SCHEDULE_ONCE and a SCHEDULE every minute fire once per due time"
    )
    func fleetFiresOnce() async throws {
        try await FleetTests.withTwoGateways { a, b in
            let (thing, owner, create) = try await Self.ownedThing(a, "fleet-trigger")
            let minute: Int64 = 60_000
            let created = Self.now()
            let everyMinute = try await create(["eventSource": "SCHEDULE", "schedule": "* * * * *"])
            // The gateway took its creation time between the two (on a loaded machine the request
            // may cross a minute's start, and then the first due time is the minute after).
            let createdBy = Self.now()
            let once = try await create(["eventSource": "SCHEDULE_ONCE", "scheduleAt": .int(Self.now() + 1000)])
            let onTrue = try await create([
                "eventSource": "STATES", "triggersWhen": "CONDITION_TRUE",
                "condition": ["type": "eq", "field": "power", "value": true],
            ])
            // Twenty states through the two gateways at once, every other one satisfying it.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    let gateway = index % 2 == 0 ? a : b
                    group.addTask {
                        try await gateway.call(
                            .put, "/thing-if/apps/\(a.appID)/targets/thing:\(thing.id)/states", token: thing.token,
                            json: ["power": .bool(index % 4 < 2), "index": .int(Int64(index))]
                        ).expect(.noContent)
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await Self.fired(a, thing: thing.id, token: owner.token)[onTrue] == 10)
            // Once the schedulers passed the first whole minute after the SCHEDULE's creation, it
            // fired once for each minute that began since (one, unless the states took long).
            let firstDue = (createdBy / minute + 1) * minute
            try await Self.schedulerPassed(
                b, thing: thing.id, token: owner.token, create: create, delay: max(firstDue - Self.now(), 0) + 500)
            let checked = Self.now()
            let counts = try await Self.fired(b, thing: thing.id, token: owner.token)
            let dues = Int(checked / minute - createdBy / minute)...Int(checked / minute - created / minute)
            #expect(dues.lowerBound >= 1)
            #expect(counts[once] == 1)
            #expect(dues.contains(counts[everyMinute] ?? 0), "\(counts[everyMinute] ?? 0) fired, \(dues) due")
            #expect(counts[onTrue] == 10)
            #expect(counts.count == 4, "\(counts)")
        }
    }
}
