import Foundation
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore

/// The client against a real Mosquitto with TopicGate's plugin (see `BrokerProcess`).
@Suite("MQTTBridge against a real broker")
struct MQTTClientBrokerTests {
    /// Device `topic` connected and subscribed to its topic, and the gateway's client connected,
    /// on `broker`; both shut down if either fails to.
    static func deviceAndGateway(_ topic: String, on broker: BrokerProcess) async throws -> (MQTTClient, MQTTClient) {
        let device = try broker.deviceClient(topic)
        let gateway = try broker.gatewayClient()
        do {
            try await device.connect(timeout: .seconds(5))
            #expect(try await device.subscribe(topic) == .atLeastOnce)
            try await gateway.connect(timeout: .seconds(5))
            return (device, gateway)
        } catch {
            device.shutdown()
            gateway.shutdown()
            throw error
        }
    }

    @Test("QoS 1 publishes are acknowledged and received in order by the device")
    func publishAndReceive() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let (device, gateway) = try await Self.deviceAndGateway("dev-order", on: broker)
        defer {
            device.shutdown()
            gateway.shutdown()
        }
        let publications = try (0..<200).map { try gateway.startPublishing("dev-order", payload: Array("m\($0)".utf8)) }
        for publication in publications { try await publication.acknowledged(timeout: .seconds(5)) }
        let received = await ReceivedMessages(device).wait(for: 200)
        #expect(received.map(\.text) == (0..<200).map { "m\($0)" })
        #expect(received.allSatisfy { $0.topic == "dev-order" })
    }

    @Test("Bursts ten times the in-flight window are acknowledged in full and arrive in order")
    func burstPastTheWindow() async throws {
        // 100 in flight: the other 900 of each burst wait in libmosquitto and go out as PUBACKs
        // come in, from the network loop's reads. A burst stays within what the broker queues for
        // one slow device (100 in flight + `max_queued_messages 1000`), so that a loaded machine,
        // where the device reads slower than the gateway publishes, loses nothing to the
        // broker's own limit; the next burst starts once the device has the last.
        let broker = try BrokerProcess()
        try await broker.start()
        let (device, gateway) = try await Self.deviceAndGateway("dev-burst", on: broker)
        defer {
            device.shutdown()
            gateway.shutdown()
        }
        #expect(gateway.configuration.maxInflightMessages == 100)
        let inbox = ReceivedMessages(device)
        for round in 0..<3 {
            let burst = try (round * 1_000..<(round + 1) * 1_000).map {
                try gateway.startPublishing("dev-burst", payload: Array("b\($0)".utf8))
            }
            #expect(await gateway.unacknowledged(burst, timeout: .seconds(30)).isEmpty)
            _ = await inbox.wait(for: (round + 1) * 1_000, timeout: .seconds(30))
        }
        #expect(inbox.all.map(\.text) == (0..<3_000).map { "b\($0)" })
    }

    @Test("Many publications are awaited under one deadline: none left when the broker answers; all when it is frozen")
    func oneDeadline() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let gateway = try broker.gatewayClient()
        defer { gateway.shutdown() }
        try await gateway.connect(timeout: .seconds(5))
        let answered = try (0..<300).map { try gateway.startPublishing("dev-\($0 % 7)", payload: Array("m\($0)".utf8)) }
        #expect(await gateway.unacknowledged(answered, timeout: .seconds(5)).isEmpty)

        broker.send(signal: SIGSTOP)
        defer { broker.send(signal: SIGCONT) }
        let frozen = try (0..<20).map { try gateway.startPublishing("dev-\($0)", payload: Array("f\($0)".utf8)) }
        let began = ContinuousClock.now
        #expect(await gateway.unacknowledged(frozen, timeout: .milliseconds(500)) == Set(0..<20))
        // Ended by its deadline (a frozen broker never answers); the bound leaves room for a
        // loaded machine, far below the 30 s deadline below.
        #expect(ContinuousClock.now - began < .seconds(10))

        // The network loop keeps the deadlines: a shorter one set while it waits for a longer
        // one still ends on time, and a single publish times out like a batch.
        let long = Task {
            await gateway.unacknowledged([try gateway.startPublishing("dev-l", payload: [1])], timeout: .seconds(30))
        }
        try await Task.sleep(for: .milliseconds(100))
        let short = ContinuousClock.now
        let error = await #expect(throws: MQTTError.self) {
            try await gateway.publish("dev-s", payload: [2], timeout: .milliseconds(300))
        }
        #expect(error?.code == .timeout)
        #expect(ContinuousClock.now - short < .seconds(10))
        // Still waiting, for the broker that thaws: acknowledged.
        broker.send(signal: SIGCONT)
        #expect(try await long.value.isEmpty)
    }

    @Test("Without a network loop (never connected) a publication is refused at once, not waited for")
    func noLoop() async throws {
        let broker = try BrokerProcess()
        let client = try broker.gatewayClient()
        defer { client.shutdown() }
        let began = ContinuousClock.now
        // libmosquitto refuses a publication on a client that never connected: at once, with
        // its error, never a publication left to wait for.
        let refusal = #expect(throws: MQTTError.self) { try client.startPublishing("dev-n", payload: [1]) }
        #expect(refusal?.code == .library, "\(String(describing: refusal))")
        #expect(refusal?.detail.contains("not currently connected") == true)
        #expect(ContinuousClock.now - began < .seconds(3))
    }

    @Test("A wrong password is a connectionRefused error and a refused event, with no retry storm")
    func refusedConnection() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let other = broker.signer.devicePassword(
            topic: "dev-b", issuedAt: 0, expiresAt: .wallClock + .seconds(60))
        let device = try broker.deviceClient("dev-a", password: other)
        defer { device.shutdown() }
        var events = device.connectionEvents.makeAsyncIterator()
        let error = await #expect(throws: MQTTError.self) { try await device.connect(timeout: .seconds(5)) }
        #expect(error?.code == .connectionRefused)
        #expect(error?.returnCode == 5)
        if case .refused(let refusal)? = await events.next() {
            #expect(refusal.code == .connectionRefused)
        } else {
            Issue.record("no refused event")
        }
        #expect(!device.isConnected)
    }

    @Test("A refused SUBACK throws subscriptionRefused; the own topic is granted")
    func refusedSubscription() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let device = try broker.deviceClient("dev-sub")
        defer { device.shutdown() }
        try await device.connect(timeout: .seconds(5))
        for filter in ["#", "dev-other", "$SYS/#", "+"] {
            let error = await #expect(throws: MQTTError.self) { try await device.subscribe(filter) }
            #expect(error?.code == .subscriptionRefused, "\(filter)")
        }
        #expect(try await device.subscribe("dev-sub") == .atLeastOnce)
    }

    @Test("After a broker restart the client reconnects by itself and publishes again")
    func reconnects() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let gateway = try broker.gatewayClient()
        defer { gateway.shutdown() }
        var events = gateway.connectionEvents.makeAsyncIterator()
        try await gateway.connect(timeout: .seconds(5))
        #expect(await events.next() == .connected)
        try await broker.stop()
        #expect(await events.next() == .disconnected(expected: false))
        try await broker.start()
        #expect(await events.next() == .connected)
        #expect(gateway.isConnected)
        try await gateway.publish("dev-x", payload: Array("after".utf8), timeout: .seconds(5))
    }

    @Test("A persistent session gets what was published while it was away, across a broker restart")
    func persistentSession() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let first = try broker.deviceClient("dev-away", cleanSession: false)
        try await first.connect(timeout: .seconds(5))
        try await first.subscribe("dev-away")
        first.shutdown()

        let gateway = try broker.gatewayClient()
        try await gateway.connect(timeout: .seconds(5))
        for i in 0..<5 { try await gateway.publish("dev-away", payload: Array("queued \(i)".utf8)) }
        gateway.shutdown()
        try await broker.stop(signal: SIGTERM)
        try await broker.start()

        let again = try broker.deviceClient("dev-away", cleanSession: false)
        defer { again.shutdown() }
        let received = ReceivedMessages(again)
        try await again.connect(timeout: .seconds(5))
        #expect(await received.wait(for: 5).map(\.text) == (0..<5).map { "queued \($0)" })
    }

    @Test("A revocation on the control topic kicks the device and refuses it until expiry; devices cannot send one")
    func revocation() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let device = try broker.deviceClient("dev-kicked")
        let gateway = try broker.gatewayClient()
        defer {
            device.shutdown()
            gateway.shutdown()
        }
        var events = device.connectionEvents.makeAsyncIterator()
        try await device.connect(timeout: .seconds(5))
        #expect(await events.next() == .connected)

        // A device publishing a revocation of another device changes nothing.
        let victim = try broker.deviceClient("dev-victim")
        defer { victim.shutdown() }
        try await victim.connect(timeout: .seconds(5))
        let forged = MQTTControlMessage(revoking: [
            .init(username: "dev-victim", expiresAt: .wallClock + .seconds(60))
        ])
        try? await device.publish(MQTTControlMessage.topic, payload: forged.payload, timeout: .seconds(2))

        try await gateway.connect(timeout: .seconds(5))
        let revoke = MQTTControlMessage(revoking: [
            .init(username: "dev-kicked", expiresAt: .wallClock + .seconds(60))
        ])
        try await gateway.publish(MQTTControlMessage.topic, payload: revoke.payload)
        #expect(await events.next() == .disconnected(expected: false))
        // The gateway's revocation, handled after the forged one, kicked its device; the forged
        // one kicked nobody.
        #expect(victim.isConnected)
        // libmosquitto retries; the plugin refuses the same, still valid, password.
        if case .refused(let refusal)? = await events.next() {
            #expect(refusal.returnCode == 5)
        } else {
            Issue.record("the revoked device was not refused")
        }
        #expect(victim.isConnected)
    }
}

extension MQTTClientBrokerTests {
    /// Calls `shutdown()` on a thread of its own (not a global queue's, which other tests'
    /// blocking work can keep busy) and waits up to `limit` for it to return.
    static func shutsDown(_ client: MQTTClient, within limit: Duration = .seconds(15)) async -> Bool {
        // Both the call and the watch run on threads of their own: a task polling the clock
        // could itself wait past the limit for one of the few threads Swift's tasks share (a
        // full test run keeps them busy) and then report a shutdown that had long returned.
        await withCheckedContinuation { (outcome: CheckedContinuation<Bool, Never>) in
            let done = DispatchSemaphore(value: 0)
            Thread {
                client.shutdown()
                done.signal()
            }.start()
            Thread {
                let seconds = Double(limit.components.seconds)
                outcome.resume(returning: done.wait(timeout: .now() + seconds) == .success)
            }.start()
        }
    }

    @Test("Shutting down while connects race with it always returns, and no connect works afterwards")
    func shutdownRacingConnect() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        for round in 0..<20 {
            let client = try broker.gatewayClient()
            let connecting = Task { try await client.connect(timeout: .seconds(5)) }
            // Shut down at a different moment of the connect each round, from nothing sent to connected.
            try await Task.sleep(for: .microseconds(round * 500))
            #expect(await Self.shutsDown(client), "round \(round): shutdown did not return")
            _ = try? await connecting.value
            await #expect(throws: MQTTError.self) { try await client.connect(timeout: .seconds(1)) }
        }
    }
}
