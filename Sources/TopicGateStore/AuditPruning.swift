import Synchronization
import TopicGateCore

/// When a change of an ACL also removes the audit records past their retention: at most once a
/// minute (of the changes' own times) per store. On PostgreSQL that `DELETE` is planned at every
/// execution (a range of times: the best plan depends on the value) and took 20 times longer to
/// plan than to run, once per ACL change; a record then outlives `AuditRetention.span` by at
/// most a minute.
final class AuditPruning: Sendable {
    /// How far apart two prunings are, in the changes' times.
    static let interval: Duration = .seconds(60)
    private let last = Mutex<UnixMillis?>(nil)

    /// Whether a change at `time` prunes (and if so, the next one within a minute does not).
    func isDue(at time: UnixMillis) -> Bool {
        last.withLock { last in
            if let previous = last, time >= previous, time - previous < Self.interval { return false }
            last = time
            return true
        }
    }
}
