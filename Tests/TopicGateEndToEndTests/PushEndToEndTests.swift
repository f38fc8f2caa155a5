import Foundation
import HTTPTypes
import MQTTBridge
import ProcessSupport
import TestSupport
import Testing
import TopicGateCore

/// Sends reach devices through the real executable and a real Mosquitto, and only the devices
/// allowed to read them.
@Suite("MQTT push end to end", .serialized)
struct PushEndToEndTests {
    @Test("A's device receives what B sends to A's subscription; B's device receives nothing")
    func deliveryAndIsolation() async throws {
        let world = try await PushWorld.started()
        let a = try await world.pseudoUser()
        let b = try await world.pseudoUser()
        let topic = try await world.groupTopic(owner: a.token, members: [b.id])
        try await world.subscribe(topic, userID: a.id, token: a.token)

        let aEndpoint = try await world.install(token: a.token)
        let bEndpoint = try await world.install(token: b.token)
        let aDevice = try await world.connectedDevice(aEndpoint)
        let bDevice = try await world.connectedDevice(bEndpoint)
        defer {
            aDevice.shutdown()
            bDevice.shutdown()
        }
        let aReceived = ReceivedMessages(aDevice)
        let bReceived = ReceivedMessages(bDevice)

        let pushMessageID = try await world.push(topic, token: b.token, message: "hello A")
        let messages = await aReceived.wait(for: 1)
        #expect(messages.count == 1)
        let payload = try #require(messages.first).object
        #expect(messages.first?.topic == aEndpoint.topic)
        #expect(payload["msg"]?.stringValue == "hello A")
        #expect(payload["sender"]?.stringValue == b.id)
        #expect(payload["topic"]?.stringValue == "news")
        #expect(payload["pushMessageID"]?.stringValue == pushMessageID)
        #expect(await bReceived.before(marker: try await world.marker(to: b)) == [])
        #expect(aReceived.count == 1)
        try await world.stop()
    }

    @Test("mqtt-endpoint: every field non-empty, X-MQTT-TTL in body and header, only the owner reads it")
    func endpointShape() async throws {
        let world = try await PushWorld.started()
        let a = try await world.pseudoUser()
        let b = try await world.pseudoUser()
        let endpoint = try await world.install(token: a.token)
        for key in [
            "installationID", "username", "password", "mqttTopic", "host", "portTCP", "portSSL", "portWS", "portWSS",
            "X-MQTT-TTL",
        ] {
            let value = try #require(endpoint.object[key], "\(key) missing")
            #expect(value != .string("") && value != .null, "\(key) empty")
        }
        #expect(endpoint.object["portTCP"]?.intValue == Int64(world.broker.port))
        // Nothing listens for TLS here (no TLS files): the endpoint names no TLS port. The
        // gateway relays WebSockets on its own port.
        #expect(endpoint.object["portSSL"]?.intValue == 0)
        #expect(endpoint.object["portWSS"]?.intValue == 0)
        #expect(endpoint.object["portWS"]?.intValue == Int64(world.server.webSocketPort))
        #expect(endpoint.username == endpoint.topic)
        // Compact credentials fit Kii's C thing SDK (127 characters of password, 63 of the rest).
        #expect((endpoint.object["password"]?.stringValue?.count ?? 99) <= 64)
        for key in ["username", "mqttTopic", "installationID", "host"] {
            #expect((endpoint.object[key]?.stringValue?.count ?? 99) <= 63, "\(key)")
        }
        let ttl = try #require(endpoint.headers[HTTPField.Name("X-MQTT-TTL")!])
        #expect(Int64(ttl) == endpoint.object["X-MQTT-TTL"]?.intValue)
        #expect((Int64(ttl) ?? 0) > 3600)

        let other = try await world.call(
            .get, "\(world.app)/installations/\(endpoint.installationID)/mqtt-endpoint", token: b.token)
        #expect(
            other.status == .forbidden && other.object["errorCode"] == "UNAUTHORIZED", "\(other.status) \(other.text)")
        #expect(other.object["password"] == nil)
        let unknown = try await world.call(.get, "\(world.app)/installations/nope/mqtt-endpoint", token: a.token)
        #expect(unknown.status == .notFound)
        #expect(unknown.object["errorCode"]?.stringValue == "INSTALLATION_NOT_FOUND")
        try await world.stop()
    }

    @Test(
        "Wrong, expired and other devices' passwords are refused; # and other topics get refused SUBACKs"
    )
    func brokerRefusals() async throws {
        let world = try await PushWorld.started()
        let a = try await world.pseudoUser()
        let b = try await world.pseudoUser()
        let topic = try await world.groupTopic(owner: a.token, members: [b.id])
        try await world.subscribe(topic, userID: b.id, token: b.token)
        let aEndpoint = try await world.install(token: a.token)
        let bEndpoint = try await world.install(token: b.token)

        let now = UnixSeconds.wallClock
        var tampered = Array(aEndpoint.password.utf8)
        tampered[tampered.count - 2] =
            tampered[tampered.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let passwords = [
            "wrong": String(decoding: tampered, as: UTF8.self),
            "expired": world.broker.signer.devicePassword(
                topic: aEndpoint.topic, issuedAt: now - .seconds(7200), expiresAt: now - .seconds(3600)),
            "other device's": bEndpoint.password,
            "empty": "",
        ]
        for (name, password) in passwords {
            let device = try world.device(aEndpoint, password: password)
            defer { device.shutdown() }
            let error = await #expect(throws: MQTTError.self, "\(name) password") {
                try await device.connect(timeout: .seconds(5))
            }
            #expect(error?.code == .connectionRefused, "\(name) password")
        }
        // B's credentials under A's client ID and username: refused too.
        let impostor = try MQTTClient(
            configuration: MQTTClientConfiguration(
                host: "127.0.0.1", port: world.broker.port, clientID: bEndpoint.topic, username: aEndpoint.username,
                password: bEndpoint.password))
        defer { impostor.shutdown() }
        await #expect(throws: MQTTError.self) { try await impostor.connect(timeout: .seconds(5)) }
        // Anonymous: refused.
        let anonymous = try MQTTClient(
            configuration: MQTTClientConfiguration(
                host: "127.0.0.1", port: world.broker.port, clientID: "anonymous-\(UUID().uuidString.prefix(6))"))
        defer { anonymous.shutdown() }
        await #expect(throws: MQTTError.self) { try await anonymous.connect(timeout: .seconds(5)) }

        // A connects properly and tries to listen to everything, and to B's topic.
        let snoop = try world.device(aEndpoint)
        defer { snoop.shutdown() }
        try await snoop.connect(timeout: .seconds(5))
        let snooped = ReceivedMessages(snoop)
        for filter in ["#", "+", bEndpoint.topic, "$SYS/#", "\(bEndpoint.topic)/#"] {
            let error = await #expect(throws: MQTTError.self, "\(filter)") { try await snoop.subscribe(filter) }
            #expect(error?.code == .subscriptionRefused, "\(filter)")
        }
        let bDevice = try await world.connectedDevice(bEndpoint)
        defer { bDevice.shutdown() }
        let bReceived = ReceivedMessages(bDevice)
        try await world.push(topic, token: a.token, message: "for B only")
        #expect(await bReceived.wait(for: 1).count == 1)
        // A's own topic is the one it may read: its marker comes, and nothing came before it.
        try await snoop.subscribe(aEndpoint.topic)
        #expect(await snooped.before(marker: try await world.marker(to: a)) == [])

        // A device cannot publish into another device's topic either: B receives nothing from A.
        try? await snoop.publish(bEndpoint.topic, payload: Array("forged".utf8), timeout: .seconds(2))
        #expect(await bReceived.before(marker: try await world.marker(to: b), since: 1) == [])
        try await world.stop()
    }

    @Test("Revoking A's access stops delivery on the next send; deleting A's installation kicks its connection")
    func revocation() async throws {
        let world = try await PushWorld.started()
        let scene = try await world.subscribedMember()
        let (owner, a, topic, endpoint) = (scene.owner, scene.member, scene.topic, scene.endpoint)
        let device = try await world.connectedDevice(endpoint)
        defer { device.shutdown() }
        let received = ReceivedMessages(device)
        var events = device.connectionEvents.makeAsyncIterator()
        #expect(await events.next() == .connected)

        try await world.push(topic, token: owner.token, message: "one")
        #expect(await received.wait(for: 1).count == 1)
        let groupID = topic.split(separator: "/")[4]
        let removed = try await world.call(
            .delete, "\(topic)/acl/SUBSCRIBE_TO_TOPIC/GroupID:\(groupID)", token: owner.token)
        #expect(removed.status == .noContent)
        try await world.push(topic, token: owner.token, message: "two")
        #expect(await received.before(marker: try await world.marker(to: a), since: 1) == [])

        let deleted = try await world.call(
            .delete, "\(world.app)/installations/\(endpoint.installationID)", token: a.token)
        #expect(deleted.status == .noContent)
        #expect(await events.next() == .disconnected(expected: false))
        // Its credentials still carry a valid signature; the plugin refuses them anyway.
        if case .refused? = await events.next() {} else { Issue.record("the deleted installation reconnected") }
        #expect(
            try await world.call(
                .get, "\(world.app)/installations/\(endpoint.installationID)/mqtt-endpoint", token: a.token
            ).status == .notFound)
        try await world.stop()
    }

    @Test("Deleting the user kicks its devices; its endpoint is gone")
    func userDeletionKicks() async throws {
        let world = try await PushWorld.started()
        let a = try await world.pseudoUser()
        let endpoint = try await world.install(token: a.token)
        let device = try await world.connectedDevice(endpoint)
        defer { device.shutdown() }
        var events = device.connectionEvents.makeAsyncIterator()
        #expect(await events.next() == .connected)
        #expect(try await world.call(.delete, "\(world.app)/users/me", token: a.token).status == .noContent)
        #expect(await events.next() == .disconnected(expected: false))
        if case .refused? = await events.next() {} else { Issue.record("the deleted user's device reconnected") }
        try await world.stop()
    }

    @Test("Deleting a thing kicks its device")
    func thingDeletionKicks() async throws {
        let world = try await PushWorld.started()
        let owner = try await world.pseudoUser()
        let thing = try await world.onboardThing("doomed", owner: owner)
        let device = try await world.connectedDevice(thing.endpoint)
        defer { device.shutdown() }
        var events = device.connectionEvents.makeAsyncIterator()
        #expect(await events.next() == .connected)
        #expect(
            try await world.call(.delete, "\(world.app)/things/\(thing.id)", token: owner.token).status == .noContent)
        #expect(await events.next() == .disconnected(expected: false))
        if case .refused? = await events.next() {} else { Issue.record("the deleted thing's device reconnected") }
        try await world.stop()
    }

    @Test("Broker down while sends are accepted: after it restarts, the persistent-session device gets every message")
    func brokerOutage() async throws {
        let world = try await PushWorld.started()
        let scene = try await world.subscribedMember()
        let (owner, topic, endpoint) = (scene.owner, scene.topic, scene.endpoint)
        let device = try await world.connectedDevice(endpoint, cleanSession: false)
        defer { device.shutdown() }
        let received = ReceivedMessages(device)

        try await world.push(topic, token: owner.token, message: "before")
        #expect(await received.wait(for: 1).count == 1)
        let ready = try await world.call(.get, "/ready")
        #expect(ready.status == .ok)
        #expect(ready.object["broker"]?.stringValue == "connected")
        try await world.broker.stop(signal: SIGTERM)
        #expect(try await eventually { try await world.call(.get, "/ready").status == .serviceUnavailable })
        #expect(try await world.call(.get, "/health").status == .ok)
        var accepted: Set<String> = []
        for i in 0..<20 {
            accepted.insert(try await world.push(topic, token: owner.token, message: "during \(i)"))
        }
        try await world.broker.start()
        #expect(try await eventually { try await world.call(.get, "/ready").status == .ok })
        let all = await received.wait(for: 21, timeout: .seconds(30))
        let delivered = Set(all.compactMap { $0.object["pushMessageID"]?.stringValue })
        #expect(accepted.isSubset(of: delivered), "missing \(accepted.subtracting(delivered).count) of 20")
        try await world.stop()
    }

    @Test(
        "A broker frozen (SIGSTOP) for longer than three acknowledgement timeouts: the pushes sent meanwhile wait, no attempt spent, and arrive after SIGCONT; none is a dead letter"
    )
    func frozenBroker() async throws {
        let world = try await PushWorld.started()
        do {
            let scene = try await world.subscribedMember()
            let device = try await world.connectedDevice(scene.endpoint, cleanSession: false)
            defer { device.shutdown() }
            let received = ReceivedMessages(device)
            try await world.push(scene.topic, token: scene.owner.token, message: "before")
            #expect(await received.wait(for: 1).count == 1)

            world.broker.send(signal: SIGSTOP)
            var accepted: Set<String> = []
            for i in 0..<5 {
                accepted.insert(try await world.push(scene.topic, token: scene.owner.token, message: "frozen \(i)"))
            }
            // Three acknowledgement timeouts (10 s each) and more, the broker answering nothing.
            try await Task.sleep(for: .seconds(35))
            world.broker.send(signal: SIGCONT)
            let all = await received.wait(for: 6, timeout: .seconds(60))
            let delivered = Set(all.compactMap { $0.object["pushMessageID"]?.stringValue })
            #expect(accepted.isSubset(of: delivered), "missing \(accepted.subtracting(delivered).count) of 5")
            let admin = try await world.adminToken()
            let letters = try await world.call(.get, "\(world.app)/dead-letters", token: admin)
            #expect(letters.object["deadLetters"]?.arrayValue?.isEmpty == true, "\(letters.text)")
        } catch {
            world.broker.send(signal: SIGCONT)
            try await world.stop()
            throw error
        }
        try await world.stop()
    }

    @Test(
        "A push a live broker never acknowledges (a proxy drops its PUBLISH) is retried alone and dead-lettered after three attempts; the others arrive"
    )
    func unacknowledgedPushIsDeadLettered() async throws {
        let (world, proxy, log) = try await Self.behindProxy("dropping_proxy.py", "drop-me")
        defer { proxy.killNow() }
        try await world.stopping {
            let scene = try await world.subscribedMember()
            let device = try await world.connectedDevice(scene.endpoint)
            defer { device.shutdown() }
            let received = ReceivedMessages(device)
            let dropped = try await world.push(scene.topic, token: scene.owner.token, message: "drop-me")
            _ = try await world.push(scene.topic, token: scene.owner.token, message: "fine-1")
            #expect(await received.wait(for: 1, timeout: .seconds(30)).first?.object["msg"] == "fine-1")
            // Three attempts of 10 s each, the broker answering the probe after each.
            let admin = try await world.adminToken()
            #expect(
                try await eventually(timeout: .seconds(90)) {
                    let letters = try await world.call(.get, "\(world.app)/dead-letters", token: admin)
                    return letters.object["deadLetters"]?.arrayValue?.isEmpty == false
                })
            let letters = try await world.call(.get, "\(world.app)/dead-letters", token: admin)
            let letter = letters.object["deadLetters"]?.arrayValue?.first?.objectValue
            #expect(letter?["pushMessageID"]?.stringValue == dropped)
            #expect(
                letter?["reason"]?.stringValue == "not acknowledged by the broker after 3 attempts", "\(letters.text)")
            // Each attempt went out and was dropped (the first perhaps by the request itself, too).
            #expect(
                (try String(contentsOfFile: log, encoding: .utf8)).components(separatedBy: "dropped").count - 1 >= 3)
            // Delivery flows on; the dropped push never reached the device.
            _ = try await world.push(scene.topic, token: scene.owner.token, message: "fine-2")
            let all = await received.wait(for: 2, timeout: .seconds(30))
            #expect(all.compactMap { $0.object["msg"]?.stringValue } == ["fine-1", "fine-2"])
        }
    }

    @Test("A connection lost in the middle of a send is a broker down: the push waits, costs no attempt, arrives")
    func outageDuringSend() async throws {
        // The network goes away with the push in flight and stays away for longer than three
        // acknowledgement timeouts (10 s each, and the 5 s probe after one).
        let (world, proxy, log) = try await Self.behindProxy("outage_proxy.py", "cut-me", "45")
        defer { proxy.killNow() }
        try await world.stopping {
            let scene = try await world.subscribedMember()
            let device = try await world.connectedDevice(scene.endpoint)
            defer { device.shutdown() }
            let received = ReceivedMessages(device)
            let admin = try await world.adminToken()
            let sent = try await world.call(
                .post, "\(scene.topic)/push/messages?trace=true", token: admin,
                contentType: "application/vnd.kii.SendPushMessageRequest+json", json: ["data": ["msg": "cut-me"]]
            ).expect(.created)
            let messageID = try sent.require("pushMessageID")
            let deliveries = try sent.require("deliveries")
            func traced() async throws -> [String: JSONValue]? {
                let reply = try await world.call(.get, deliveries, token: admin).expect(.ok)
                return reply.object["deliveries"]?.arrayValue?.first?.objectValue
            }
            // Its acknowledgement timed out on a lost connection: waiting for the broker, no attempt.
            #expect(
                try await eventually(timeout: .seconds(30)) {
                    try await traced()?["detail"] == "its broker is down; waiting for it"
                })
            #expect(try String(contentsOfFile: log, encoding: .utf8).contains("outage: cut"))
            while try !String(contentsOfFile: log, encoding: .utf8).contains("outage over") {
                let row = try await traced()
                #expect(row?["state"] == "pending" && row?["detail"] == "its broker is down; waiting for it")
                try await Task.sleep(for: .seconds(1))
            }
            // The network back: it arrives, and no attempt was spent on the outage.
            let first = await received.wait(for: 1, timeout: .seconds(60)).first?.object
            #expect(first?["pushMessageID"]?.stringValue == messageID)
            #expect(try await eventually(timeout: .seconds(30)) { try await traced()?["state"] == "acknowledged" })
            let letters = try await world.call(.get, "\(world.app)/dead-letters", token: admin).expect(.ok)
            #expect(letters.object["deadLetters"]?.arrayValue?.isEmpty == true, "\(letters.text)")
            // A failed attempt is a failed publication; what a broker that was down never had is none.
            let metrics = try await world.server.metricsText()
            #expect(PushMetricsTests.sample(metrics, "topicgate_pushes_failed_total") == 0)
            #expect((PushMetricsTests.sample(metrics, "topicgate_pushes_acknowledged_total") ?? 0) >= 1)
        }
    }

    /// A started world whose gateway reaches its broker through the test proxy `script`,
    /// given `arguments` after the ports; devices connect to the broker directly.
    private static func behindProxy(_ script: String, _ arguments: String...) async throws -> (
        PushWorld, ChildProcess, log: String
    ) {
        let broker = try BrokerProcess()
        let proxyPort = FreePort.next()
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Proxy/" + script).path
        let log = broker.directory + "/proxy.log"
        let proxy = try ChildProcess.spawn(
            executable: "/usr/bin/env", arguments: ["python3", path, "\(proxyPort)", "\(broker.port)"] + arguments,
            logPath: log)
        do {
            #expect(try await eventually { TCPProbe.accepts(host: "127.0.0.1", port: proxyPort) })
            let world = try PushWorld(
                arguments: ["--mqtt-public-ports", "\(broker.port),0,0,0"], broker: broker,
                link: ["--broker", "mqtt://127.0.0.1:\(proxyPort)", "--mqtt-secret-file", broker.secretFile])
            try await world.start()
            return (world, proxy, log)
        } catch {
            proxy.killNow()
            throw error
        }
    }

    @Test("Gateway killed with a non-empty outbox: after a restart the messages are delivered")
    func gatewayCrash() async throws {
        let world = try await PushWorld.started()
        let scene = try await world.subscribedMember()
        let (owner, topic, endpoint) = (scene.owner, scene.topic, scene.endpoint)

        // The broker is down, so nothing can leave the outbox; then the gateway dies.
        try await world.broker.stop(signal: SIGTERM)
        var accepted: Set<String> = []
        for i in 0..<10 {
            accepted.insert(try await world.push(topic, token: owner.token, message: "queued \(i)"))
        }
        try await world.server.stop(signal: SIGKILL)
        try await world.broker.start()
        let device = try await world.connectedDevice(endpoint)
        defer { device.shutdown() }
        let received = ReceivedMessages(device)

        // The outbox had them all: each arrives once the gateway is back, without waiting for
        // the 30 s lease the dead process held on them (the restarted gateway is the same one).
        try await world.server.start()
        let all = await received.wait(for: 10, timeout: .seconds(15))
        #expect(Set(all.compactMap { $0.object["pushMessageID"]?.stringValue }) == accepted)
        // And each once: nothing more before a marker sent after them.
        #expect(await received.before(marker: try await world.marker(to: scene.member), since: 10) == [])
        try await world.stop()
    }

    @Test(
        "A password change kicks the devices installed with the user's other tokens; disabling the user kicks the rest")
    func passwordChangeAndDisable() async throws {
        let world = try await PushWorld.started()
        let user = try await world.normalUser("carol")
        let otherToken = try await world.login("carol", password: "password123")
        let kept = try await world.connectedDevice(try await world.install(token: user.token))
        let dropped = try await world.connectedDevice(try await world.install(token: otherToken))
        defer {
            kept.shutdown()
            dropped.shutdown()
        }
        let keptReceived = ReceivedMessages(kept)
        var keptEvents = kept.connectionEvents.makeAsyncIterator()
        var droppedEvents = dropped.connectionEvents.makeAsyncIterator()
        #expect(await keptEvents.next() == .connected)
        #expect(await droppedEvents.next() == .connected)

        let changed = try await world.call(
            .put, "\(world.app)/users/me/password", token: user.token, contentType: "application/json",
            body: #"{"oldPassword":"password123","newPassword":"password456"}"#)
        #expect(changed.status == .noContent)
        #expect(await droppedEvents.next() == .disconnected(expected: false))
        // The device of the token that changed the password still receives.
        #expect(await keptReceived.before(marker: try await world.marker(to: user)) == [])
        #expect(kept.isConnected)

        let admin = try await world.adminToken()
        let disabled = try await world.call(
            .put, "\(world.app)/users/\(user.id)/status", token: admin, contentType: "application/json",
            body: #"{"disabled":true}"#)
        #expect(disabled.status == .noContent)
        #expect(await keptEvents.next() == .disconnected(expected: false))
        try await world.stop()
    }

    @Test("Onboarding answers the thing's mqttEndpoint; the thing receives what its owner sends to its topic")
    func thingOnboardingEndpoint() async throws {
        let world = try await PushWorld.started()
        let owner = try await world.pseudoUser()
        let onboarded = try await world.call(
            .post, "/thing-if/apps/\(world.appID)/onboardings", token: owner.token,
            contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
            json: ["vendorThingID": "lamp-1", "thingPassword": "lamp-secret", "owner": .string("user:\(owner.id)")])
        #expect(onboarded.status == .ok)
        let thingID = try #require(onboarded.object["thingID"]?.stringValue)
        let thingToken = try #require(onboarded.object["accessToken"]?.stringValue)
        guard case .object(let endpointJSON)? = onboarded.object["mqttEndpoint"] else {
            Issue.record("no mqttEndpoint in \(onboarded.object)")
            return
        }
        let endpoint = PushWorld.Endpoint(
            installationID: endpointJSON["installationID"]?.stringValue ?? "", object: endpointJSON)
        for key in ["installationID", "username", "password", "mqttTopic", "host", "portTCP", "X-MQTT-TTL"] {
            #expect(endpointJSON[key] != nil, "\(key)")
        }
        let thing = try await world.connectedDevice(endpoint)
        defer { thing.shutdown() }
        let received = ReceivedMessages(thing)

        let topic = "\(world.app)/things/\(thingID)/topics/commands"
        #expect(try await world.call(.put, topic, token: owner.token).status == .noContent)
        #expect(
            try await world.call(.post, "\(topic)/push/subscriptions/things", token: thingToken).status == .noContent)
        try await world.push(topic, token: owner.token, message: "turn on")
        let messages = await received.wait(for: 1)
        #expect(messages.first?.object["msg"]?.stringValue == "turn on")

        // Onboarding again hands out an installation of its own, bound to the token it issued
        // (revoking that token revokes it), with fresh credentials.
        let again = try await world.call(
            .post, "/thing-if/apps/\(world.appID)/onboardings", token: owner.token,
            contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
            json: ["vendorThingID": "lamp-1", "thingPassword": "lamp-secret", "owner": .string("user:\(owner.id)")])
        guard case .object(let second)? = again.object["mqttEndpoint"] else {
            Issue.record("no mqttEndpoint on the second onboarding")
            return
        }
        #expect(second["mqttTopic"] != nil)
        #expect(second["mqttTopic"] != endpointJSON["mqttTopic"])
        try await world.stop()
    }
}
