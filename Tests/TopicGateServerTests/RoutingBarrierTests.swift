import Synchronization
import Testing

@testable import TopicGateServer

/// When the gateway takes fan-outs to be routed into their devices' sessions: only on the answer
/// to a barrier sent after their acknowledgement, on the connection they went out on.
@Suite("Routing barriers")
struct RoutingBarrierTests {
    /// A barrier over a fake connection: what it sent, and the connection number to report.
    final class Wire: Sendable {
        let sent = Mutex<[String]>([])
        let connection = Mutex(0)
    }

    final class Line: Sendable {
        let wire = Wire()
        let outcomes = Mutex<[String: RoutingBarrier.Outcome]>([:])
        let barrier: RoutingBarrier

        init() {
            let wire = wire
            barrier = RoutingBarrier(timeout: .seconds(10), connection: { wire.connection.withLock { $0 } }) { id in
                wire.sent.withLock { $0.append(id) }
                return true
            }
        }

        func wait(_ name: String) {
            barrier.afterRouting(connection: wire.connection.withLock { $0 }) { outcome in
                self.outcomes.withLock { $0[name] = outcome }
            }
        }

        var last: String? { wire.sent.withLock { $0.last } }
        func outcome(_ name: String) -> RoutingBarrier.Outcome? { outcomes.withLock { $0[name] } }
    }

    @Test("One barrier in flight; what is acknowledged meanwhile waits for the next; others' answers are ignored")
    func oneInFlight() throws {
        let line = Line()
        line.barrier.connected(prefix: "c1")
        line.wait("a")
        line.wait("b")
        #expect(line.wire.sent.withLock { $0 } == ["c1x1"], "b waits for the answer to the first")
        line.barrier.answered("someone-else")
        #expect(line.outcome("a") == nil)
        line.barrier.answered("c1x1")
        #expect(line.outcome("a") == .routed)
        #expect(line.outcome("b") == nil, "b was acknowledged after c1x1 was sent")
        #expect(line.last == "c1x2")
        line.barrier.answered("c1x2")
        #expect(line.outcome("b") == .routed)
    }

    @Test("An answer read after the connection was lost is no proof: the waiters are told .lost")
    func answerOnAnotherConnection() {
        let line = Line()
        line.barrier.connected(prefix: "c1")
        line.wait("a")
        // The broker restarted; libmosquitto sent the barrier again on the new connection and
        // it was answered there, before the gateway heard of the disconnect.
        line.wire.connection.withLock { $0 += 1 }
        line.barrier.answered("c1x1")
        #expect(line.outcome("a") == .lost)
        // Waiting after the connection changed is lost at once; a new connection orphans the rest.
        line.wait("b")
        line.barrier.disconnected()
        #expect(line.outcome("b") == .lost)
        line.barrier.connected(prefix: "c2")
        line.wait("c")
        line.barrier.connected(prefix: "c3")
        #expect(line.outcome("c") == .lost)
    }

    @Test("An answer that never comes times out")
    func timeout() {
        let line = Line()
        line.barrier.connected(prefix: "c1")
        line.wait("a")
        line.barrier.expire(now: .now + .seconds(5))
        #expect(line.outcome("a") == nil)
        line.barrier.expire(now: .now + .seconds(11))
        #expect(line.outcome("a") == .timedOut)
    }
}
