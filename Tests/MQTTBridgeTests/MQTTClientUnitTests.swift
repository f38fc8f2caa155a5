import Foundation
import TestSupport
import Testing

@testable import MQTTBridge

/// The client without a broker: return-code mapping, timeouts, shutdown and lifetimes.
@Suite("MQTTBridge: return codes and lifetimes")
struct MQTTClientUnitTests {
    @Test("Success passes; every other libmosquitto code becomes a library error with its text")
    func returnCodes() throws {
        try MQTTError.check(0, "anything")
        // 4 is MOSQ_ERR_NO_CONN, 3 MOSQ_ERR_INVAL, 14 MOSQ_ERR_ERRNO in mosquitto.h.
        for (rc, text) in [(Int32(4), "not currently connected"), (3, "Invalid"), (1, "memory")] {
            let error = #expect(throws: MQTTError.self) { try MQTTError.check(rc, "publish to t") }
            #expect(error?.code == .library)
            #expect(error?.returnCode == rc)
            #expect(error?.detail.hasPrefix("publish to t: ") == true)
            #expect(error?.detail.localizedCaseInsensitiveContains(text) == true, "\(error?.detail ?? "")")
        }
    }

    @Test("A refused CONNACK names its reason")
    func refusals() {
        let notAuthorised = MQTTError.refused(5)
        #expect(notAuthorised.code == .connectionRefused)
        #expect(notAuthorised.returnCode == 5)
        #expect(notAuthorised.detail.localizedCaseInsensitiveContains("not authori"))
        #expect(MQTTError.refused(4).detail.localizedCaseInsensitiveContains("bad user"))
    }

    func unreachableClient() throws -> MQTTClient {
        // A port that was free a moment ago: nothing answers, libmosquitto keeps retrying.
        try MQTTClient(
            configuration: MQTTClientConfiguration(
                host: "127.0.0.1", port: FreePort.next(), clientID: "unit-\(UUID().uuidString.prefix(8))",
                reconnectDelay: (1, 1)))
    }

    @Test("connect throws timeout when nothing answers, and shutdown afterwards is clean")
    func connectTimeout() async throws {
        let client = try unreachableClient()
        let started = ContinuousClock.now
        let error = await #expect(throws: MQTTError.self) { try await client.connect(timeout: .milliseconds(300)) }
        #expect(error?.code == .timeout)
        // It gives up instead of waiting for a broker (libmosquitto would retry for ever). A
        // bound against a hang only: when the whole suite starts at once on 2 cores (dozens of
        // gateways, brokers and PostgreSQL starting), the timeout's wake-up alone waited ~30 s.
        #expect(ContinuousClock.now - started < .seconds(120))
        client.shutdown()
        #expect(!client.isConnected)
    }

    @Test("shutdown fails a pending connect with closed, and ends both streams")
    func shutdownFailsWaiters() async throws {
        let client = try unreachableClient()
        let connecting = Task { try await client.connect(timeout: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(200))
        client.shutdown()
        let error = await #expect(throws: MQTTError.self) { try await connecting.value }
        #expect(error?.code == .closed)
        var messages = client.messages.makeAsyncIterator()
        #expect(await messages.next() == nil)
        var events = client.connectionEvents.makeAsyncIterator()
        #expect(await events.next() == nil)
    }

    @Test("A client is freed when its owner drops it, started or not")
    func lifetimes() async throws {
        weak var never: MQTTClient?
        weak var started: MQTTClient?
        do {
            let idle = try unreachableClient()
            never = idle
            let running = try unreachableClient()
            started = running
            _ = try? await running.connect(timeout: .milliseconds(100))
            running.shutdown()
        }
        #expect(never == nil)
        #expect(started == nil)
    }

}
