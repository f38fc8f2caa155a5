/// The failures of one key and the lock they caused. Pure: the caller passes the time in.
public struct LockoutState: Sendable, Hashable {
    public private(set) var failures = 0
    public private(set) var lastFailureAt: Int64 = 0
    public private(set) var lockedUntil: Int64 = 0

    public init() {}

    /// Milliseconds the key stays locked (0: it is not).
    public func remainingLock(now: Int64) -> Int64 {
        max(0, lockedUntil - now)
    }

    /// Counts a failure at `now` and locks the key when the policy says so.
    public mutating func recordFailure(policy: LockoutPolicy, now: Int64) {
        if isForgotten(policy: policy, now: now) { failures = 0 }
        failures += 1
        lastFailureAt = now
        let lock = policy.lockMillis(afterFailures: failures)
        if lock > 0 { lockedUntil = now + lock }
    }

    /// True when no lock holds and the last failure is old enough to forget.
    public func isForgotten(policy: LockoutPolicy, now: Int64) -> Bool {
        lockedUntil <= now && now - lastFailureAt > policy.forgetAfterMillis
    }
}
