import Foundation
import HTTPTypes
import MQTTBridge
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

    /// Runs `body` with a new fleet, and stops everything afterwards, whether it threw or not.
    static func withFleet(_ body: (Fleet) async throws -> Void) async throws {
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
        let arguments = [
            "--database", url, "--broker", brokers, "--mqtt-secret-file", one.secretFile, "--outbox-lease", "2",
        ]
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(UUID().uuidString)").path
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
}
