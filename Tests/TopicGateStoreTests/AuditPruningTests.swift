import Testing
import TopicGateCore

@testable import TopicGateStore

@Suite("Store: pruning the ACL audit")
struct AuditPruningTests {
    @Test("The first ACL change prunes, the next ones within a minute of it do not, the first a minute later does")
    func onceAMinute() {
        let pruning = AuditPruning()
        #expect(pruning.isDue(at: 10))
        #expect(!pruning.isDue(at: 10))
        #expect(!pruning.isDue(at: 12))
        #expect(!pruning.isDue(at: UnixMillis(10 + 59_999)))
        #expect(pruning.isDue(at: UnixMillis(10 + 60_000)))
        // A clock set back does not hold pruning off until it catches up.
        #expect(pruning.isDue(at: 5))
    }
}
