public import TopicGateCore

/// Scheduled jobs that must run on one gateway of a fleet at a time.
public protocol JobLeaseStore: Sendable {
    /// True when `gateway` holds the lease of `job` until `until`: it was free, ran out before
    /// `now`, or was this gateway's already (then it is extended).
    func takeJobLease(_ job: String, gateway: String, now: UnixMillis, until: UnixMillis) async throws -> Bool
}
