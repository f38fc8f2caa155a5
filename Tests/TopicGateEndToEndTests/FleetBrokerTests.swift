import Foundation
import HTTPTypes
import MQTTBridge
import Synchronization
import TestSupport
import Testing
import TopicGateCore

/// Two gateways on one PostgreSQL and two Mosquitto brokers, devices spread over both, as the
/// docker-compose fleet runs them.
@Suite("Fleet: devices spread over two brokers")
struct FleetBrokerTests {
    /// The brokers (sharing one secret) and the two gateways that name both.
    struct Fleet {
        let a: ServerProcess
        let b: ServerProcess
        let one: BrokerProcess
        let two: BrokerProcess

        /// The broker that serves `endpoint`'s device, by the port its endpoint names.
        func broker(of endpoint: PushWorld.Endpoint) -> String {
            endpoint.portTCP == one.port ? "one" : endpoint.portTCP == two.port ? "two" : "neither"
        }
    }

    /// A group topic made through gateway A, its owner and a member, each with a device connected
    /// and its inbox; the owner subscribed.
    struct GroupTopic {
        let path: String
        let owner: (id: String, token: String)
        let member: (id: String, token: String)
        let ownerInbox: ReceivedMessages
        let memberInbox: ReceivedMessages
    }

    /// `body` with a fleet's two gateways and a `GroupTopic` made through the first.
    static func withGroupTopic(
        _ body: (ServerProcess, ServerProcess, GroupTopic) async throws -> Void
    ) async throws {
        try await withFleet { fleet in
            let (a, b) = (fleet.a, fleet.b)
            let owner = try await a.pseudoUser()
            let member = try await a.pseudoUser()
            let ownerDevice = try await a.connectedDevice(try await a.install(token: owner.token))
            let memberDevice = try await a.connectedDevice(try await a.install(token: member.token))
            defer {
                ownerDevice.shutdown()
                memberDevice.shutdown()
            }
            let (ownerInbox, memberInbox) = (ReceivedMessages(ownerDevice), ReceivedMessages(memberDevice))
            let topic = try await a.groupTopic(owner: owner.token, members: [member.id])
            try await a.subscribe(topic, userID: owner.id, token: owner.token)
            try await body(
                a, b,
                GroupTopic(
                    path: topic, owner: owner, member: member, ownerInbox: ownerInbox, memberInbox: memberInbox))
        }
    }

    /// Runs `body` with a new fleet (its gateways with `more` flags), and stops everything
    /// afterwards, whether it threw or not.
    static func withFleet(_ more: [String] = [], _ body: (Fleet) async throws -> Void) async throws {
        let url = try await TestPostgres.shared.newDatabase()
        let one = try BrokerProcess()
        // The second broker shares the first one's secret: any broker verifies any device.
        let secondDirectory = one.directory + "-two"
        try FileManager.default.createDirectory(atPath: secondDirectory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: one.secretFile, toPath: secondDirectory + "/mqtt-secret")
        let two = try BrokerProcess(directory: secondDirectory)
        try await one.start()
        try await two.start()
        let brokers = "mqtt://127.0.0.1:\(one.port)?name=one,mqtt://127.0.0.1:\(two.port)?name=two"
        let arguments =
            [
                "--database", url, "--broker", brokers, "--mqtt-secret-file", one.secretFile, "--outbox-lease", "2",
            ] + more
        let base = TestFolder.url.appendingPathComponent("fleet-\(UUID().uuidString)").path
        let a = ServerProcess(dataDirectory: base + "-a", arguments: arguments)
        let b = ServerProcess(dataDirectory: base + "-b", arguments: arguments, credentialsOf: a)
        func stopAll() async {
            _ = try? await a.stop(signal: SIGTERM)
            _ = try? await b.stop(signal: SIGTERM)
            try? await one.stop()
            try? await two.stop()
        }
        do {
            try await a.start()
            try await b.start()
            try await body(Fleet(a: a, b: b, one: one, two: two))
        } catch {
            await stopAll()
            throw error
        }
        await stopAll()
    }

    @Test(
        "Installations alternate between the brokers; sends through either gateway and a command's ID reach the devices on both, nowhere else; a revoked device is refused by every broker"
    )
    func spreadOverBrokers() async throws {
        try await Self.withFleet { fleet in
            let (a, b) = (fleet.a, fleet.b)
            let owner = try await a.pseudoUser()
            let outsider = try await b.pseudoUser()
            // Balanced by count, whichever gateway installs: one, two, one, two.
            let ownerOne = try await a.install(token: owner.token)
            let ownerTwo = try await b.install(token: owner.token)
            let outsiderOne = try await b.install(token: outsider.token)
            let outsiderTwo = try await a.install(token: outsider.token)
            #expect(
                [ownerOne, ownerTwo, outsiderOne, outsiderTwo].map(fleet.broker) == ["one", "two", "one", "two"])
            let endpoints = [ownerOne, ownerTwo, outsiderOne, outsiderTwo]
            var devices: [MQTTClient] = []
            for endpoint in endpoints { devices.append(try await a.connectedDevice(endpoint)) }
            defer { for device in devices { device.shutdown() } }
            let inboxes = devices.map(ReceivedMessages.init)

            let topic = try await a.groupTopic(owner: owner.token, members: [])
            try await b.subscribe(topic, userID: owner.id, token: owner.token)
            let sent = [
                try await a.send(topic, token: owner.token, message: "through A").expect(.created).require(
                    "pushMessageID"),
                try await b.send(topic, token: owner.token, message: "through B").expect(.created).require(
                    "pushMessageID"),
            ]
            for inbox in inboxes[0...1] {
                let received = await inbox.wait(for: 2)
                #expect(Set(received.compactMap { $0.object["pushMessageID"]?.stringValue }) == Set(sent))
            }

            // A command through A, its results through B: the commandID reaches both of the
            // issuer's devices, one on each broker.
            let thing = try await a.onboardThing("lamp-on-two-brokers", owner: owner)
            let thingDevice = try await b.connectedDevice(thing.endpoint)
            defer { thingDevice.shutdown() }
            let thingInbox = ReceivedMessages(thingDevice)
            let base = "/thing-if/apps/\(a.appID)/targets/thing:\(thing.id)"
            let created = try await a.call(
                .post, "\(base)/commands", token: owner.token, contentType: "application/json",
                json: ["actions": [["turnPower": ["power": true]]], "issuer": .string("user:\(owner.id)")])
            let commandID = try #require(created.object["commandID"]?.stringValue)
            #expect(await thingInbox.wait(for: 1).first?.object["commandID"]?.stringValue == commandID)
            try await b.call(
                .put, "\(base)/commands/\(commandID)/action-results", token: thing.token,
                contentType: "application/vnd.kii.CommandResultsUpdateRequest+json",
                json: ["actionResults": [["turnPower": ["succeeded": true]]]]
            ).expect(.noContent)
            for inbox in inboxes[0...1] {
                #expect(await inbox.wait(for: 3).last?.object["commandID"]?.stringValue == commandID)
            }
            // The outsider's devices, on both brokers, got none of it.
            let marker = try await b.marker(to: outsider)
            for inbox in inboxes[2...3] { #expect(await inbox.before(marker: marker) == []) }

            // The owner's device on broker two is deleted through A: kicked, and refused by
            // broker one as well (its signature is still valid; every broker was told).
            var events = devices[1].connectionEvents.makeAsyncIterator()
            #expect(await events.next() == .connected)
            try await a.call(.delete, "\(a.app)/installations/\(ownerTwo.installationID)", token: owner.token).expect(
                .noContent)
            #expect(await events.next() == .disconnected(expected: false))
            for broker in [fleet.one, fleet.two] {
                let elsewhere = try MQTTClient(
                    configuration: MQTTClientConfiguration(
                        host: "127.0.0.1", port: broker.port, clientID: ownerTwo.topic, username: ownerTwo.username,
                        password: ownerTwo.password))
                defer { elsewhere.shutdown() }
                let error = await #expect(throws: MQTTError.self, "broker on \(broker.port)") {
                    try await elsewhere.connect(timeout: .seconds(5))
                }
                #expect(error?.code == .connectionRefused)
            }

            // Gateway B kept the owner's devices (it sent to them above); the device deleted
            // through A is no recipient of B's either: nothing is published on its topic, watched
            // on broker two with the gateways' own credentials (which may read any topic), while
            // the owner's other device receives. The push has left the outbox (every publication
            // of it acknowledged) before a marker goes through B to the outsider's device on the
            // same broker, which the watcher reads too: anything B published to the deleted device
            // would come before it.
            let watcher = try fleet.two.gatewayClient(clientID: "watcher-\(UUID().uuidString.prefix(8))")
            defer { watcher.shutdown() }
            try await watcher.connect(timeout: .seconds(5))
            try await watcher.subscribe(ownerTwo.topic)
            try await watcher.subscribe(outsiderTwo.topic)
            let watched = ReceivedMessages(watcher)
            try await b.send(topic, token: owner.token, message: "after the delete").expect(.created)
            let kept = await inboxes[0].wait(for: 4)
            #expect(kept.last?.object["msg"]?.stringValue == "after the delete")
            #expect(
                try await eventually {
                    PushMetricsTests.sample(try await b.metricsText(), "topicgate_outbox_depth") == 0
                })
            let afterDelete = try await b.marker(to: outsider)
            #expect(await watched.before(marker: afterDelete) == [], "B published to the deleted device")
        }
    }

    @Test(
        "A subscription made through B reaches the subscribers A kept (the change feed's `listeners`): within 5 s a send through A reaches the new subscriber's device"
    )
    func subscriptionThroughOther() async throws {
        try await Self.withGroupTopic { a, b, topic in
            let (owner, member, ownerInbox, memberInbox) = (
                topic.owner, topic.member, topic.ownerInbox, topic.memberInbox
            )
            let topic = topic.path
            // A reads the topic's subscribers for this send and keeps them: the owner alone.
            try await a.send(topic, token: owner.token, message: "before").expect(.created)
            #expect(await ownerInbox.wait(for: 1).count == 1)
            try await b.subscribe(topic, userID: member.id, token: member.token)
            var sent = 0
            let start = ContinuousClock.now
            while memberInbox.count == 0 && ContinuousClock.now - start < .seconds(5) {
                sent += 1
                try await a.send(topic, token: owner.token, message: "after \(sent)").expect(.created)
                _ = await memberInbox.wait(for: 1, timeout: .milliseconds(100))
            }
            #expect(memberInbox.count > 0, "\(sent) sends through A in 5 s, none reached the member B subscribed")
            #expect(await ownerInbox.wait(for: 1 + sent).count == 1 + sent)
        }
    }

    @Test(
        "A subscription ended through B ends what A sends to it: within 5 s of the unsubscription, sends through A no longer reach the former subscriber's device"
    )
    func unsubscriptionThroughOther() async throws {
        try await Self.withGroupTopic { a, b, topic in
            let (owner, member, ownerInbox, memberInbox) = (
                topic.owner, topic.member, topic.ownerInbox, topic.memberInbox
            )
            let topic = topic.path
            try await a.subscribe(topic, userID: member.id, token: member.token)
            // A reads the topic's subscribers for this send and keeps them: both.
            try await a.send(topic, token: owner.token, message: "before").expect(.created)
            #expect(await memberInbox.wait(for: 1).count == 1)
            try await b.call(.delete, "\(topic)/push/subscriptions/users/\(member.id)", token: member.token)
                .expect(.noContent)
            // Sends through A until one reaches the owner but not the member (A heard of it).
            var sent = 0
            let start = ContinuousClock.now
            while ContinuousClock.now - start < .seconds(5) {
                sent += 1
                let before = memberInbox.count
                try await a.send(topic, token: owner.token, message: "after \(sent)").expect(.created)
                #expect(await ownerInbox.wait(for: 1 + sent).count == 1 + sent)
                // Published to both in one batch: had it gone to the member, it would be there now.
                try await Task.sleep(for: .milliseconds(100))
                if memberInbox.count == before { break }
            }
            #expect(ContinuousClock.now - start < .seconds(5), "A still sent to the member 5 s after B ended it")
            // From then on, nothing more reaches the member.
            let heard = memberInbox.count
            for index in 0..<5 {
                try await a.send(topic, token: owner.token, message: "later \(index)").expect(.created)
            }
            #expect(await ownerInbox.wait(for: 1 + sent + 5).count == 1 + sent + 5)
            let marker = try await a.marker(to: member)
            #expect(await memberInbox.before(marker: marker)?.count == heard, "a send through A reached the member")
        }
    }

    @Test("One broker stopped: the other broker's devices keep receiving; the stopped one's receive after its restart")
    func brokerDown() async throws {
        try await Self.withFleet { fleet in
            let (a, b) = (fleet.a, fleet.b)
            let owner = try await a.pseudoUser()
            let onOne = try await a.install(token: owner.token)
            let onTwo = try await b.install(token: owner.token)
            #expect([onOne, onTwo].map(fleet.broker) == ["one", "two"])
            let deviceOne = try await a.connectedDevice(onOne)
            // A persistent session: broker two keeps the subscription across its restart.
            let deviceTwo = try await a.connectedDevice(onTwo, cleanSession: false)
            defer { for device in [deviceOne, deviceTwo] { device.shutdown() } }
            let (inboxOne, inboxTwo) = (ReceivedMessages(deviceOne), ReceivedMessages(deviceTwo))
            let topic = try await a.groupTopic(owner: owner.token, members: [])
            try await a.subscribe(topic, userID: owner.id, token: owner.token)

            try await fleet.two.stop(signal: SIGTERM)
            var accepted: [String] = []
            for i in 0..<10 {
                let gateway = i.isMultiple(of: 2) ? a : b
                accepted.append(
                    try await gateway.send(topic, token: owner.token, message: "during \(i)").expect(.created).require(
                        "pushMessageID"))
            }
            // Broker one's device has them all while broker two is still down.
            let first = await inboxOne.wait(for: 10)
            #expect(Set(first.compactMap { $0.object["pushMessageID"]?.stringValue }) == Set(accepted))
            #expect(inboxTwo.all.isEmpty)
            // Still ready (broker one serves its devices), and /ready says which broker is down.
            let ready = try await a.call(.get, "/ready")
            #expect(ready.status == .ok)
            #expect(ready.object["brokers"]?.objectValue == ["one": "connected", "two": "disconnected"])

            try await fleet.two.start()
            let second = await inboxTwo.wait(for: 10, timeout: .seconds(30))
            #expect(Set(second.compactMap { $0.object["pushMessageID"]?.stringValue }) == Set(accepted))
            // Waiting for a broker is no failed attempt: nothing became a dead letter, and
            // broker one's device got each message once.
            #expect(await inboxOne.before(marker: try await b.marker(to: owner), since: 10) == [])
            #expect(try await a.metricsText().contains("\ntopicgate_dead_letters 0"))
        }
    }

    @Test(
        "Things on both brokers publish states: each gateway shares each broker's subscription, so every state is recorded once"
    )
    func statesOnBothBrokers() async throws {
        try await Self.withFleet { fleet in
            let (a, b) = (fleet.a, fleet.b)
            let owner = try await a.pseudoUser()
            let first = try await a.onboardThing("lamp-1", owner: owner)
            let second = try await b.onboardThing("lamp-2", owner: owner)
            #expect([first.endpoint, second.endpoint].map(fleet.broker) == ["one", "two"])
            for thing in [first, second] {
                let device = try await a.connectedDevice(thing.endpoint)
                defer { device.shutdown() }
                for brightness in 1...5 {
                    // The last one well after the others: it is the latest, whichever gateway took it.
                    if brightness == 5 { try await Task.sleep(for: .milliseconds(500)) }
                    try await device.publish(
                        thing.endpoint.topic + "/state", payload: Array(#"{"brightness":\#(brightness)}"#.utf8))
                }
                let base = "/thing-if/apps/\(a.appID)/targets/thing:\(thing.id)"
                #expect(
                    try await eventually {
                        try await b.call(.get, "\(base)/states", token: owner.token).object["brightness"]?.intValue == 5
                    })
                try await Task.sleep(for: .milliseconds(500))
                let history = try await a.call(.get, "\(base)/states/history", token: owner.token)
                let recorded = history.object["states"]?.arrayValue?.compactMap {
                    $0.objectValue?["state"]?.objectValue?["brightness"]?.intValue
                }
                #expect(recorded?.sorted() == [1, 2, 3, 4, 5], "\(thing.id) recorded \(recorded ?? [])")
                #expect(recorded?.last == 5)
            }
        }
    }

    @Test(
        "kill -9 of one gateway during a stream of sends through both: every send answered 201 reaches the devices on both brokers"
    )
    func gatewayKilledMidStream() async throws {
        try await Self.withFleet { fleet in
            let (a, b) = (fleet.a, fleet.b)
            let owner = try await a.pseudoUser()
            let endpoints = [try await a.install(token: owner.token), try await b.install(token: owner.token)]
            #expect(endpoints.map(fleet.broker) == ["one", "two"])
            var devices: [MQTTClient] = []
            for endpoint in endpoints { devices.append(try await b.connectedDevice(endpoint)) }
            defer { for device in devices { device.shutdown() } }
            let inboxes = devices.map(ReceivedMessages.init)
            let topic = try await a.groupTopic(owner: owner.token, members: [])
            try await a.subscribe(topic, userID: owner.id, token: owner.token)

            /// Sends `count` messages through `gateway`, one after another, until one is not
            /// answered (its gateway died): the pushMessageIDs of those answered 201.
            let answeredByA = Counter()
            @Sendable func stream(_ gateway: ServerProcess, _ name: String, count: Int) async -> [String] {
                var accepted: [String] = []
                for i in 0..<count {
                    guard let reply = try? await gateway.send(topic, token: owner.token, message: "\(name)\(i)"),
                        reply.status == .created, let id = reply.object["pushMessageID"]?.stringValue
                    else { break }
                    accepted.append(id)
                    if name == "a" { answeredByA.add() }
                }
                return accepted
            }
            async let throughA = stream(a, "a", count: 1000)
            async let throughB = stream(b, "b", count: 150)
            // Killed while its stream runs (after 20 answered sends, however slow the machine).
            _ = try await eventually(timeout: .seconds(60)) { answeredByA.value >= 20 }
            try await a.stop(signal: SIGKILL)
            let accepted = Set(await throughA + throughB)
            let fromA = await throughA.count
            #expect(fromA >= 20 && fromA < 1000, "A answered \(fromA) sends: the kill was not mid-stream")

            // What A had accepted (and perhaps claimed) is delivered by B once A's lease ran out,
            // on both brokers. (At least once: A may have published some before it died.)
            for (inbox, broker) in zip(inboxes, ["one", "two"]) {
                var delivered: Set<String> = []
                let deadline = ContinuousClock.now + .seconds(30)
                while !accepted.isSubset(of: delivered), ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(100))
                    delivered = Set(inbox.all.compactMap { $0.object["pushMessageID"]?.stringValue })
                }
                #expect(
                    accepted.subtracting(delivered).isEmpty,
                    "broker \(broker): \(accepted.subtracting(delivered).count) of \(accepted.count) lost")
            }
            print(
                "FleetBrokerTests: \(accepted.count) sends answered 201 (\(fromA) by the killed gateway), all delivered "
                    + "on both brokers")
        }
    }

    /// A count shared by concurrent tasks.
    final class Counter: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
    }
}
