import Foundation
import Glibc
import TestSupport
import Testing

@testable import MQTTBridge

/// The client's own poll() loop works with descriptors past select()'s limit of 1024: a
/// gateway holding a thousand HTTP connections still connects and reconnects to its broker.
///
/// Run it on its own (`make test` does): it holds 1100 descriptors of the test process for a
/// while. (Foundation's `Process.run` crashed beside it; no test spawns through it any more.)
@Suite("MQTTBridge: descriptors past 1024", .serialized)
struct MQTTClientDescriptorTests {
    @Test("With more than 1024 descriptors open, the client connects, reconnects after a broker restart, and publishes")
    func highDescriptors() async throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < 4096 {
            limit.rlim_cur = min(4096, limit.rlim_max)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        var held: [Int32] = []
        defer { for descriptor in held { close(descriptor) } }
        /// Takes every free descriptor below 1100, so that the next socket is numbered past it.
        func fillLowDescriptors() throws {
            while true {
                let descriptor = open("/dev/null", O_RDONLY)
                guard descriptor >= 0 else { throw TestFailure("cannot open more descriptors (errno \(errno))") }
                held.append(descriptor)
                if descriptor >= 1100 { return }
            }
        }
        try fillLowDescriptors()
        let broker = try BrokerProcess()
        try await broker.start()
        try fillLowDescriptors()  // the broker's start used some
        let gateway = try broker.gatewayClient(clientID: "topicgate-fd-test")
        defer { gateway.shutdown() }
        var events = gateway.connectionEvents.makeAsyncIterator()
        try await gateway.connect(timeout: .seconds(10))
        #expect(await events.next() == .connected)
        #expect(gateway.socketDescriptor >= 1024, "the broker socket is \(gateway.socketDescriptor)")
        try await gateway.publish("dev-fd", payload: Array("before".utf8), timeout: .seconds(5))

        try await broker.stop()
        #expect(await events.next() == .disconnected(expected: false))
        try fillLowDescriptors()
        try await broker.start()
        #expect(await events.next() == .connected)
        try await gateway.publish("dev-fd", payload: Array("after".utf8), timeout: .seconds(5))
        try await broker.stop()
    }
}
