/// The failures of one key and the lock they caused. Pure: the caller passes the time in.
public struct LockoutState: Sendable, Hashable {
    public private(set) var failures = 0
    public private(set) var lastFailureAt: Int64 = 0
    public private(set) var lockedUntil: Int64 = 0

    public init() {}

    /// A lockout as it was kept.
    public init(failures: Int, lastFailureAt: Int64, lockedUntil: Int64) {
        self.failures = failures
        self.lastFailureAt = lastFailureAt
        self.lockedUntil = lockedUntil
    }

    /// When the lockout is forgotten (and so no different from none).
    public func forgottenAt(policy: LockoutPolicy) -> Int64 {
        max(lockedUntil, lastFailureAt + policy.forgetAfterMillis + 1)
    }

    /// Milliseconds the key stays locked (0: it is not).
    public func remainingLock(now: Int64) -> Int64 {
        max(0, lockedUntil - now)
    }

    /// Failures that still count at `now` (0 once they are forgotten).
    public func countedFailures(policy: LockoutPolicy, now: Int64) -> Int {
        isForgotten(policy: policy, now: now) ? 0 : failures
    }

    /// True when one more attempt may start while `pending` others are still being checked:
    /// if every pending one failed, they must not go past the lock. So at most
    /// `failuresBeforeLock` attempts are ever in flight or failed before the lock holds, and
    /// once a lock has run out, one attempt at a time (its failure locks again, for longer).
    public func admitsAttempt(policy: LockoutPolicy, pending: Int, now: Int64) -> Bool {
        admission(policy: policy, pending: pending, now: now) == .admitted
    }

    /// `admitsAttempt`, saying why not: locked (a lock holds), or busy (only the checks in
    /// flight stand in the way, so waiting for them may admit it).
    public func admission(policy: LockoutPolicy, pending: Int, now: Int64) -> LockoutAdmission {
        guard remainingLock(now: now) == 0 else { return .locked }
        let failures = countedFailures(policy: policy, now: now)
        let admitted =
            failures >= policy.failuresBeforeLock ? pending == 0 : failures + pending < policy.failuresBeforeLock
        return admitted ? .admitted : .busy
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
