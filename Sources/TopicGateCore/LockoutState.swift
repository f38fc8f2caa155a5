/// The failures of one key and the lock they caused. Pure: the caller passes the time in.
public struct LockoutState: Sendable, Hashable {
    public private(set) var failures = 0
    public private(set) var lastFailureAt: UnixMillis = 0
    public private(set) var lockedUntil: UnixMillis = 0

    public init() {}

    /// A lockout as it was kept.
    public init(failures: Int, lastFailureAt: UnixMillis, lockedUntil: UnixMillis) {
        self.failures = failures
        self.lastFailureAt = lastFailureAt
        self.lockedUntil = lockedUntil
    }

    /// When the lockout is forgotten (and so no different from none).
    public func forgottenAt(policy: LockoutPolicy) -> UnixMillis {
        max(lockedUntil, lastFailureAt + policy.forgetAfter + .milliseconds(1))
    }

    /// How long the key stays locked (zero: it is not).
    public func remainingLock(now: UnixMillis) -> Duration {
        max(.zero, lockedUntil - now)
    }

    /// Failures that still count at `now` (0 once they are forgotten).
    public func countedFailures(policy: LockoutPolicy, now: UnixMillis) -> Int {
        isForgotten(policy: policy, now: now) ? 0 : failures
    }

    /// True when one more attempt may start while `pending` others are still being checked:
    /// if every pending one failed, they must not go past the lock. So at most
    /// `failuresBeforeLock` attempts are ever in flight or failed before the lock holds, and
    /// once a lock has run out, one attempt at a time (its failure locks again, for longer).
    public func admitsAttempt(policy: LockoutPolicy, pending: Int, now: UnixMillis) -> Bool {
        admission(policy: policy, pending: pending, now: now) == .admitted
    }

    /// `admitsAttempt`, saying why not: locked (a lock holds), or busy (only the checks in
    /// flight stand in the way, so waiting for them may admit it).
    public func admission(policy: LockoutPolicy, pending: Int, now: UnixMillis) -> LockoutAdmission {
        guard remainingLock(now: now) == .zero else { return .locked }
        let failures = countedFailures(policy: policy, now: now)
        let admitted =
            failures >= policy.failuresBeforeLock ? pending == 0 : failures + pending < policy.failuresBeforeLock
        return admitted ? .admitted : .busy
    }

    /// Counts a failure at `now` and locks the key when the policy says so.
    public mutating func recordFailure(policy: LockoutPolicy, now: UnixMillis) {
        if isForgotten(policy: policy, now: now) { failures = 0 }
        failures += 1
        lastFailureAt = now
        let lock = policy.lock(afterFailures: failures)
        if lock > .zero { lockedUntil = now + lock }
    }

    /// True when no lock holds and the last failure is old enough to forget.
    public func isForgotten(policy: LockoutPolicy, now: UnixMillis) -> Bool {
        lockedUntil <= now && now - lastFailureAt > policy.forgetAfter
    }
}
