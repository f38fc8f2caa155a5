import Testing

@testable import MQTTBridge

/// Acknowledgements by 16-bit message ID: each reaches only its own call, also across a
/// timeout, an early arrival and libmosquitto wrapping its IDs around.
@Suite("MQTTBridge: acknowledgements by message ID")
struct AcknowledgementTableTests {
    typealias Table = AcknowledgementTable<String>

    @Test("An acknowledgement before the call registered its ID is claimed by that call")
    func early() {
        var table = Table()
        table.beginIssuing()
        #expect(table.acknowledge(7, granted: [1]) == nil)  // the loop thread beat the publisher
        #expect(table.issued(7) == .acknowledged([1]))
        if case .acknowledged([1]) = table.wait(7, "publisher") {} else { Issue.record("the early ack was lost") }
        #expect(table.entries.isEmpty)
    }

    @Test("A waiter gets its acknowledgement; one that arrives before the wait is kept for it")
    func inOrder() {
        var table = Table()
        table.beginIssuing()
        #expect(table.issued(1) == .pending)
        table.beginIssuing()
        #expect(table.issued(2) == .pending)
        if case .waiting = table.wait(1, "first") {} else { Issue.record("first should wait") }
        #expect(table.acknowledge(1, granted: []) == "first")
        #expect(table.acknowledge(2, granted: []) == nil)
        if case .acknowledged([]) = table.wait(2, "second") {} else { Issue.record("second was acknowledged already") }
        #expect(table.entries.isEmpty)
    }

    @Test("A late acknowledgement after a timeout is dropped, never given to a later call with the same ID")
    func lateAfterTimeout() {
        var table = Table()
        table.beginIssuing()
        #expect(table.issued(8) == .pending)
        _ = table.wait(8, "gave up")
        #expect(table.expire(8) == "gave up")
        // 65535 calls later libmosquitto hands out 8 again while the first is still unacknowledged:
        // neither may take an acknowledgement for 8.
        table.beginIssuing()
        #expect(table.issued(8) == .ambiguous)
        #expect(table.acknowledge(8, granted: []) == nil)
        // Once the old one is settled, 8 is free again and matches its own call.
        table.beginIssuing()
        #expect(table.issued(8) == .pending)
        _ = table.wait(8, "new")
        #expect(table.acknowledge(8, granted: []) == "new")
    }

    @Test("A late acknowledgement that comes before the ID is reused frees it; the next call is matched")
    func lateThenReuse() {
        var table = Table()
        table.beginIssuing()
        _ = table.issued(9)
        _ = table.wait(9, "gave up")
        _ = table.expire(9)
        #expect(table.acknowledge(9, granted: []) == nil)
        table.beginIssuing()
        #expect(table.issued(9) == .pending)
        if case .waiting = table.wait(9, "new") {} else { Issue.record("the late ack must not count for the new call") }
    }

    @Test("An acknowledgement for an ID no call holds is dropped when no call is being made")
    func stray() {
        var table = Table()
        #expect(table.acknowledge(11, granted: []) == nil)
        table.beginIssuing()
        #expect(table.issued(11) == .pending)
        // And what arrived during a call but was not its own is gone once no call is being made.
        table.beginIssuing()
        _ = table.acknowledge(12, granted: [])
        #expect(table.issued(13) == .pending)
        table.beginIssuing()
        #expect(table.issued(12) == .pending)
    }

    @Test("QoS 0 sends hold their ID until libmosquitto reports them sent")
    func qos0() {
        var table = Table()
        table.beginIssuing()
        #expect(table.issued(20, awaited: false) == .pending)
        #expect(table.acknowledge(20, granted: []) == nil)
        table.beginIssuing()
        #expect(table.issued(20) == .pending)
    }

    @Test("Shutdown hands back every waiter and empties the table")
    func shutdown() {
        var table = Table()
        for mid: Int32 in 1...3 {
            table.beginIssuing()
            _ = table.issued(mid)
        }
        _ = table.wait(1, "a")
        _ = table.wait(2, "b")
        #expect(Set(table.removeAll()) == ["a", "b"])
        #expect(table.entries.isEmpty)
    }
}
