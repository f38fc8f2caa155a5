import Foundation
import HTTPTypes
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore

/// Commands reach their thing, and command results reach exactly the issuer's devices, through
/// the real executable and a real Mosquitto.
@Suite("Thing-IF commands end to end", .serialized)
struct CommandRoutingTests {
    /// A small deterministic generator, so that a failing scenario can be replayed by its seed.
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let resultsMedia = "application/vnd.kii.CommandResultsUpdateRequest+json"

    @Test(
        "Randomized commands and results: each commandID push reaches exactly the issuer's devices",
        arguments: [UInt64(7), 2026])
    func routingProperty(seed: UInt64) async throws {
        var random = SplitMix64(state: seed)
        let world = try await PushWorld.started()
        let users = try await (0..<5).asyncMap { _ in try await world.pseudoUser() }
        // Groups: A (owner u0; members u1, u2) and B (owner u3; members u2, u4).
        let groupA = try await world.group(owner: users[0].token, members: [users[1].id, users[2].id])
        let groupB = try await world.group(owner: users[3].token, members: [users[2].id, users[4].id])
        // A group's owner is one of its members (Kii's groups): the expected recipients are
        // written from how the groups were made, not read from the gateway; its list must agree.
        let members: [String: [String]] = [
            groupA: [users[0].id, users[1].id, users[2].id], groupB: [users[3].id, users[2].id, users[4].id],
        ]
        for (group, owner) in [(groupA, users[0]), (groupB, users[3])] {
            let listed = try await world.call(.get, "\(world.app)/groups/\(group)/members", token: owner.token)
            let ids = (listed.object["members"]?.arrayValue ?? []).compactMap { $0.objectValue?["userID"]?.stringValue }
            #expect(Set(ids) == Set(members[group] ?? []), "the members of \(group)")
        }
        // Things: t0 owned by u0 and group A; t1 owned by u3 and group B.
        let t0 = try await world.onboardThing("t0-\(seed)", owner: users[0])
        let t1 = try await world.onboardThing("t1-\(seed)", owner: users[3])
        for (thing, group, owner) in [(t0, groupA, users[0]), (t1, groupB, users[3])] {
            let added = try await world.call(
                .put, "\(world.app)/things/\(thing.id)/ownership/group:\(group)", token: owner.token)
            #expect(added.status == .noContent)
        }
        // Devices: one per user, two for u2 (a member of both groups); one per thing.
        var devices: [(owner: String, client: MQTTClient, received: ReceivedMessages)] = []
        for (index, user) in users.enumerated() {
            for _ in 0..<(index == 2 ? 2 : 1) {
                let client = try await world.connectedDevice(try await world.install(token: user.token))
                devices.append((user.id, client, ReceivedMessages(client)))
            }
        }
        var thingDevices: [String: ReceivedMessages] = [:]
        var clients = devices.map(\.client)
        for thing in [t0, t1] {
            let client = try await world.connectedDevice(thing.endpoint)
            thingDevices[thing.id] = ReceivedMessages(client)
            clients.append(client)
        }
        defer { for client in clients { client.shutdown() } }

        let scenarios:
            [(thing: (id: String, token: String, endpoint: PushWorld.Endpoint), owners: [String], group: String)] = [
                (t0, [users[0].id], groupA), (t1, [users[3].id], groupB),
            ]
        var expected: [String: Set<String>] = [:]  // user ID → command IDs its devices must get
        var sentTo: [String: Set<String>] = [:]  // thing ID → command IDs
        for _ in 0..<12 {
            let scenario = scenarios[Int.random(in: 0..<2, using: &random)]
            let asGroup = Bool.random(using: &random)
            let issuer: String
            let caller: (id: String, token: String)
            if asGroup {
                issuer = "group:\(scenario.group)"
                let candidates = users.filter { (members[scenario.group] ?? []).contains($0.id) }
                caller = candidates[Int.random(in: 0..<candidates.count, using: &random)]
            } else {
                issuer = "user:\(scenario.owners[0])"
                caller = users.first { $0.id == scenario.owners[0] }!
            }
            let base = "/thing-if/apps/\(world.appID)/targets/thing:\(scenario.thing.id)"
            let created = try await world.call(
                .post, "\(base)/commands", token: caller.token,
                contentType: "application/vnd.kii.CommandCreationRequest+json",
                json: ["actions": [["Lamp": [["turnPower": true]]]], "issuer": .string(issuer)])
            #expect(created.status == .created)
            let commandID = try #require(created.object["commandID"]?.stringValue)
            sentTo[scenario.thing.id, default: []].insert(commandID)

            // The thing receives the command and reports.
            let thingInbox = try #require(thingDevices[scenario.thing.id])
            let arrived = await thingInbox.wait(for: sentTo[scenario.thing.id]!.count)
            #expect(arrived.last?.object["commandID"]?.stringValue == commandID)
            #expect(arrived.last?.object["actions"] != nil)
            let succeeded = Bool.random(using: &random)
            let reported = try await world.call(
                .put, "\(base)/commands/\(commandID)/action-results", token: scenario.thing.token,
                contentType: Self.resultsMedia,
                json: ["actionResults": [["Lamp": [["turnPower": ["succeeded": .bool(succeeded)]]]]]])
            #expect(reported.status == .noContent)
            let recipients = asGroup ? members[scenario.group] ?? [] : [scenario.owners[0]]
            for user in recipients { expected[user, default: []].insert(commandID) }
        }

        // Every device gets exactly its issuer's command IDs, and nothing more before a marker
        // sent after them all.
        var markers: [String: String] = [:]
        for user in users { markers[user.id] = try await world.marker(to: user) }
        for thing in [t0, t1] {
            markers[thing.id] = try await world.marker(to: (thing.id, thing.token), kind: "things")
        }
        for device in devices {
            let arrived = try #require(await device.received.before(marker: markers[device.owner]!), "\(device.owner)")
            let got = arrived.compactMap { $0.object["commandID"]?.stringValue }
            #expect(got.count == Set(got).count, "duplicates on a device of \(device.owner)")
            #expect(Set(got) == (expected[device.owner] ?? []), "device of \(device.owner)")
            #expect(
                device.received.all.allSatisfy { $0.object["actions"] == nil }, "a phone received a command's actions")
        }
        for (thing, inbox) in thingDevices {
            let arrived = try #require(await inbox.before(marker: markers[thing]!), "thing \(thing)")
            let got = arrived.compactMap { $0.object["commandID"]?.stringValue }
            #expect(Set(got) == (sentTo[thing] ?? []), "thing \(thing) got other commands or a result push")
            #expect(arrived.allSatisfy { $0.object["actions"] != nil })
        }
        try await world.stop()
    }

    @Test(
        "A command is SENDING until results, whether or not its device got it; results make it DONE; a thing with no installation left gets SEND_FAILED"
    )
    func commandStates() async throws {
        let world = try await PushWorld.started()
        let owner = try await world.pseudoUser()
        let thing = try await world.onboardThing("lamp-states", owner: owner)
        let base = "/thing-if/apps/\(world.appID)/targets/thing:\(thing.id)"
        func command() async throws -> String {
            try await world.call(
                .post, "\(base)/commands", token: owner.token, contentType: "application/json",
                json: ["actions": [["turnPower": ["power": true]]], "issuer": .string("user:\(owner.id)")]
            ).expect(.created).require("commandID")
        }
        func read(_ id: String) async throws -> [String: JSONValue] {
            try await world.call(.get, "\(base)/commands/\(id)", token: owner.token).expect(.ok).object
        }

        // The thing's device has a session on the broker and is away.
        let away = try await world.connectedDevice(thing.endpoint, cleanSession: false)
        away.shutdown()
        let first = try await command()
        // Once the broker took it for the device (publishedAt), it is still SENDING.
        #expect(try await eventually { try await read(first)["publishedAt"]?.intValue != nil })
        #expect(try await read(first)["commandState"]?.stringValue == "SENDING")
        // The device comes back and gets it; the command is still SENDING.
        let device = try world.device(thing.endpoint, cleanSession: false)
        defer { device.shutdown() }
        let received = ReceivedMessages(device)
        try await device.connect(timeout: .seconds(5))
        try await device.subscribe(thing.endpoint.topic)
        let got = await received.wait(for: 1)
        #expect(got.compactMap { $0.object["commandID"]?.stringValue } == [first])
        #expect(try await read(first)["commandState"]?.stringValue == "SENDING")
        // Results make it DONE.
        try await world.call(
            .put, "\(base)/commands/\(first)/action-results", token: thing.token,
            contentType: Self.resultsMedia, json: ["actionResults": [["turnPower": ["succeeded": true]]]]
        ).expect(.noContent)
        #expect(try await read(first)["commandState"]?.stringValue == "DONE")

        // The admin traces a command's push: whether and when the device got it is the trace's,
        // under the command's ID, while the command stays SENDING.
        let admin = try await world.adminToken()
        // The trace tells a device online from one away by what the broker reported of it (its
        // connects reach the gateway some 50 ms later): once the gateway knows it is back.
        #expect(
            try await eventually {
                try await world.installation(thing.endpoint.installationID, of: "thing:\(thing.id)", admin: admin)[
                    "online"] == true
            })
        let traced = try await world.call(
            .post, "\(base)/commands?trace=true", token: admin, contentType: "application/json",
            json: ["actions": [["turnPower": ["power": false]]], "issuer": .string("user:\(owner.id)")]
        ).expect(.created)
        let tracedID = try traced.require("commandID")
        #expect(traced.string("deliveries") == "\(world.app)/push/messages/\(tracedID)/deliveries")
        #expect(
            try await eventually {
                try await world.call(.get, "\(world.app)/push/messages/\(tracedID)/deliveries", token: admin)
                    .object["deliveries"]?.arrayValue?.first?.objectValue?["state"] == "acknowledged"
            })
        #expect(try await read(tracedID)["commandState"]?.stringValue == "SENDING")
        #expect(
            try await world.call(
                .post, "\(base)/commands?trace=true", token: owner.token,
                json: ["actions": [["turnPower": ["power": false]]], "issuer": .string("user:\(owner.id)")]
            ).status == .forbidden)

        // With its only installation deleted, the thing can never get a command: SEND_FAILED.
        try await world.call(
            .delete, "\(world.app)/installations/\(thing.endpoint.installationID)", token: thing.token
        ).expect(.noContent)
        let second = try await command()
        #expect(try await eventually { try await read(second)["commandState"]?.stringValue == "SEND_FAILED" })
        #expect(try await read(second)["publishedAt"] == nil)
        try await world.stop()
    }

    @Test(
        "A command issued as a group that is then deleted pushes its result to nobody, not to a new group made with the same ID"
    )
    func deletedGroupHearsNothing() async throws {
        let world = try await PushWorld.started()
        let owner = try await world.pseudoUser()
        let member = try await world.pseudoUser()
        let stranger = try await world.pseudoUser()
        let group = try await world.group(owner: owner.token, members: [member.id])
        let thing = try await world.onboardThing("lamp-regroup", owner: owner)
        let base = "/thing-if/apps/\(world.appID)/targets/thing:\(thing.id)"
        try await world.call(.put, "\(world.app)/things/\(thing.id)/ownership/group:\(group)", token: owner.token)
            .expect(.noContent)
        var inboxes: [(user: (id: String, token: String), received: ReceivedMessages)] = []
        var clients: [MQTTClient] = []
        for user in [owner, member, stranger] {
            let client = try await world.connectedDevice(try await world.install(token: user.token))
            clients.append(client)
            inboxes.append((user, ReceivedMessages(client)))
        }
        defer { for client in clients { client.shutdown() } }
        func command() async throws -> String {
            try await world.call(
                .post, "\(base)/commands", token: member.token, contentType: "application/json",
                json: ["actions": [["turnPower": ["power": true]]], "issuer": .string("group:\(group)")]
            ).expect(.created).require("commandID")
        }
        func report(_ id: String) async throws {
            try await world.call(
                .put, "\(base)/commands/\(id)/action-results", token: thing.token,
                contentType: Self.resultsMedia, json: ["actionResults": [["turnPower": ["succeeded": true]]]]
            ).expect(.noContent)
        }
        // While the group owns the thing, its members hear of the result.
        let heard = try await command()
        try await report(heard)
        for inbox in inboxes.prefix(2) {
            #expect(await inbox.received.wait(for: 1).first?.object["commandID"]?.stringValue == heard)
        }
        // A second command is in flight when the group is deleted and a stranger makes a group
        // with its ID, with the old member in it: the result reaches no one.
        let unheard = try await command()
        try await world.call(.delete, "\(world.app)/groups/\(group)", token: owner.token).expect(.noContent)
        try await world.call(
            .put, "\(world.app)/groups/\(group)", token: stranger.token,
            contentType: "application/vnd.kii.GroupCreationRequest+json",
            json: ["name": "same id", "members": [.string(member.id)]]
        ).expect(.created)
        try await report(unheard)
        for inbox in inboxes {
            let marker = try await world.marker(to: inbox.user)
            let arrived = try #require(await inbox.received.before(marker: marker), "\(inbox.user.id)")
            #expect(!arrived.contains { $0.object["commandID"]?.stringValue == unheard }, "\(inbox.user.id)")
        }
        // The results are kept: the thing's owner reads the command DONE.
        #expect(
            try await world.call(.get, "\(base)/commands/\(unheard)", token: owner.token).expect(.ok)
                .object["commandState"]?.stringValue == "DONE")
        try await world.stop()
    }

    @Test("A state published over MQTT is read by the owner; garbage and another thing's state are dropped")
    func mqttState() async throws {
        let world = try await PushWorld.started()
        let owner = try await world.pseudoUser()
        let thing = try await world.onboardThing("lamp-state", owner: owner)
        let base = "/thing-if/apps/\(world.appID)/targets/thing:\(thing.id)"
        let device = try await world.connectedDevice(thing.endpoint)
        defer { device.shutdown() }

        // The thing publishes its state on <mqttTopic>/state; the gateway ingests it.
        try await device.publish(
            thing.endpoint.topic + "/state", payload: Array(#"{"power":true,"brightness":80}"#.utf8))
        #expect(
            try await eventually {
                try await world.call(.get, "\(base)/states", token: owner.token).object["brightness"]?.intValue == 80
            })
        // Garbage on the state topic is dropped: the history holds the good states around it.
        try await device.publish(thing.endpoint.topic + "/state", payload: Array("not json".utf8))
        try await device.publish(
            thing.endpoint.topic + "/state", payload: Array(#"{"power":true,"brightness":81}"#.utf8))
        #expect(
            try await eventually {
                try await world.call(.get, "\(base)/states", token: owner.token).object["brightness"]?.intValue == 81
            })
        let history = try await world.call(.get, "\(base)/states/history", token: owner.token)
        #expect(
            history.object["states"]?.arrayValue?.compactMap {
                $0.objectValue?["state"]?.objectValue?["brightness"]?.intValue
            } == [80, 81])
        // A device may not publish another thing's state: by the time its own next state is in,
        // the forged one would have been too.
        let other = try await world.onboardThing("lamp-other", owner: owner)
        try? await device.publish(
            other.endpoint.topic + "/state", payload: Array(#"{"forged":true}"#.utf8), timeout: .seconds(2))
        try await device.publish(
            thing.endpoint.topic + "/state", payload: Array(#"{"power":true,"brightness":82}"#.utf8))
        #expect(
            try await eventually {
                try await world.call(.get, "\(base)/states", token: owner.token).object["brightness"]?.intValue == 82
            })
        #expect(
            try await world.call(
                .get, "/thing-if/apps/\(world.appID)/targets/thing:\(other.id)/states", token: owner.token
            ).status == .notFound)
        try await world.stop()
    }
}

extension Range where Bound == Int {
    /// Maps each index with an async throwing transform, in order.
    func asyncMap<T>(_ transform: (Int) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for index in self { results.append(try await transform(index)) }
        return results
    }
}
