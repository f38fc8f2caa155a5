import Foundation
import Synchronization
import TestSupport

/// What the senders of a fault test share: the pushMessageIDs answered 201, the answers that
/// were not 201, and whether to go on. A test paces its faults by sends (`waitForMore`), not by
/// time, so that each fault meets sends however slow the machine is.
final class SendTally: Sendable {
    let accepted = Mutex<Set<String>>([])
    let refused = Mutex<[String]>([])
    let sending = Mutex(true)

    /// Returns once `count` more sends than now were answered 201 (within a minute).
    func waitForMore(_ count: Int) async throws {
        let target = accepted.withLock { $0.count } + count
        let deadline = ContinuousClock.now + .seconds(60)
        while accepted.withLock({ $0.count }) < target {
            guard ContinuousClock.now < deadline else { throw TestFailure("sends stalled below \(target)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
