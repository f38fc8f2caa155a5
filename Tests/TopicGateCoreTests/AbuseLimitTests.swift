import Testing
import TopicGateCore

@Suite("Rate limits and lockouts")
struct AbuseLimitTests {
    @Test(
        "Limits parse from flags, and nothing else does",
        arguments: [
            ("20/min", RateLimit(count: 20, period: .seconds(60))), ("5/s", RateLimit(count: 5, period: .seconds(1))),
            ("1000/h", RateLimit(count: 1000, period: .seconds(3600))),
            ("3/day", RateLimit(count: 3, period: .seconds(86400))),
        ])
    func parsing(text: String, limit: RateLimit) {
        #expect(RateLimit(parsing: text) == limit)
        #expect(limit.description == text)
    }

    @Test("Malformed limits are refused", arguments: ["", "20", "0/min", "-1/s", "x/min", "20/week", "20/"])
    func malformed(text: String) {
        #expect(RateLimit(parsing: text) == nil)
    }

    @Test("A bucket gives its burst, then one token per refill interval; a spend never goes below empty")
    func bucket() {
        let limit = RateLimit(count: 3, period: .seconds(60))
        var bucket = TokenBucket(limit: limit, now: 0)
        for _ in 0..<3 { #expect(bucket.take(limit: limit, now: 0) == .zero) }
        #expect(bucket.take(limit: limit, now: 0) == .seconds(20))
        #expect(bucket.take(limit: limit, now: 10_000) == .seconds(10))
        #expect(bucket.take(limit: limit, now: 20_000) == .zero)
        for _ in 0..<5 { bucket.spend(limit: limit, now: 20_000) }
        #expect(bucket.wait(limit: limit, now: 20_000) == .seconds(20))
        #expect(!bucket.isFull(limit: limit, now: 60_000))
        #expect(bucket.isFull(limit: limit, now: 80_000))
    }

    @Test("The lock starts at the Nth failure and doubles up to the maximum")
    func lockDurations() {
        let policy = LockoutPolicy(
            failuresBeforeLock: 5, firstLock: .seconds(30), maximumLock: .seconds(3_600), forgetAfter: .seconds(86_400))
        #expect((1...4).map(policy.lock(afterFailures:)) == [.zero, .zero, .zero, .zero])
        #expect((5...9).map(policy.lock(afterFailures:)) == [30, 60, 120, 240, 480].map(Duration.seconds))
        #expect(policy.lock(afterFailures: 12) == .seconds(3_600))
        #expect(policy.lock(afterFailures: 1_000) == .seconds(3_600))
    }

    @Test("Failures lock, the lock runs out, and failures are forgotten after a quiet day")
    func lockoutState() {
        let policy = LockoutPolicy.perAccount
        var state = LockoutState()
        for second in 0..<4 { state.recordFailure(policy: policy, now: UnixMillis(Int64(second) * 1000)) }
        #expect(state.remainingLock(now: 4_000) == .zero)
        state.recordFailure(policy: policy, now: 4_000)
        #expect(state.remainingLock(now: 4_000) == .seconds(30))
        #expect(state.remainingLock(now: 34_000) == .zero)
        #expect(!state.isForgotten(policy: policy, now: 34_000))
        state.recordFailure(policy: policy, now: 40_000)
        #expect(state.remainingLock(now: 40_000) == .seconds(60))
        let dayLater = UnixMillis(40_000) + policy.forgetAfter + .milliseconds(1)
        #expect(state.isForgotten(policy: policy, now: dayLater))
        state.recordFailure(policy: policy, now: dayLater)
        #expect(state.failures == 1)
        #expect(state.remainingLock(now: dayLater) == .zero)
    }
}

@Suite("Lockout admission")
struct LockoutAdmissionTests {
    @Test("Attempts in flight count as failures: at most five before the lock, one at a time once it ran out")
    func admission() {
        let policy = LockoutPolicy.perAccount
        var state = LockoutState()
        #expect(state.admitsAttempt(policy: policy, pending: 4, now: 0))
        #expect(!state.admitsAttempt(policy: policy, pending: 5, now: 0))
        // Only the checks in flight stand in the way: busy (wait for them), not locked.
        #expect(state.admission(policy: policy, pending: 5, now: 0) == .busy)
        for _ in 0..<3 { state.recordFailure(policy: policy, now: 0) }
        #expect(state.admitsAttempt(policy: policy, pending: 1, now: 0))
        #expect(!state.admitsAttempt(policy: policy, pending: 2, now: 0))
        for _ in 0..<2 { state.recordFailure(policy: policy, now: 0) }
        #expect(!state.admitsAttempt(policy: policy, pending: 0, now: 29_999))
        #expect(state.admission(policy: policy, pending: 0, now: 29_999) == .locked)
        #expect(state.admitsAttempt(policy: policy, pending: 0, now: 30_000))
        #expect(!state.admitsAttempt(policy: policy, pending: 1, now: 30_000))
        #expect(state.admission(policy: policy, pending: 1, now: 30_000) == .busy)
    }

    @Test("A refund gives back one token, never more than the bucket holds")
    func refund() {
        let limit = RateLimit(count: 2, period: .seconds(3600))
        var bucket = TokenBucket(limit: limit, now: 0)
        bucket.spend(limit: limit, now: 0)
        bucket.spend(limit: limit, now: 0)
        #expect(bucket.wait(limit: limit, now: 0) > .zero)
        bucket.refund(limit: limit, now: 0)
        #expect(bucket.wait(limit: limit, now: 0) == .zero)
        bucket.refund(limit: limit, now: 0)
        bucket.refund(limit: limit, now: 0)
        #expect(bucket.tokens == 2)
    }
}
