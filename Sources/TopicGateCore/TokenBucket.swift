/// The state of one rate-limited key: a bucket of up to `limit.count` tokens that refills
/// evenly over `limit.periodMillis`. Pure: the caller passes the time in.
public struct TokenBucket: Sendable, Hashable {
    public private(set) var tokens: Double
    public private(set) var updatedAt: Int64

    /// A full bucket.
    public init(limit: RateLimit, now: Int64) {
        tokens = Double(limit.count)
        updatedAt = now
    }

    /// A bucket as it was kept.
    public init(tokens: Double, updatedAt: Int64) {
        self.tokens = tokens
        self.updatedAt = updatedAt
    }

    /// When the bucket is full again (and so no different from a new one).
    public func fullAt(limit: RateLimit) -> Int64 {
        updatedAt + Int64((max(0, Double(limit.count) - tokens) / limit.refillPerMillisecond).rounded(.up))
    }

    /// Milliseconds until a token is available (0: one is, now).
    public mutating func wait(limit: RateLimit, now: Int64) -> Int64 {
        refill(limit: limit, now: now)
        guard tokens < 1 else { return 0 }
        return Int64(((1 - tokens) / limit.refillPerMillisecond).rounded(.up))
    }

    /// Takes a token when one is available; otherwise takes nothing and returns the
    /// milliseconds until one will be.
    public mutating func take(limit: RateLimit, now: Int64) -> Int64 {
        let waiting = wait(limit: limit, now: now)
        if waiting == 0 { tokens -= 1 }
        return waiting
    }

    /// Takes a token even when none is left (the bucket never goes below empty): for events
    /// that already happened, such as a failed login.
    public mutating func spend(limit: RateLimit, now: Int64) {
        refill(limit: limit, now: now)
        tokens = max(0, tokens - 1)
    }

    /// Gives back a token spent for an event that turned out not to count (a password
    /// attempt reserved before it was checked, and then right).
    public mutating func refund(limit: RateLimit, now: Int64) {
        refill(limit: limit, now: now)
        tokens = min(Double(limit.count), tokens + 1)
    }

    /// True when the bucket has refilled completely (and so need not be remembered).
    public func isFull(limit: RateLimit, now: Int64) -> Bool {
        tokens + Double(max(0, now - updatedAt)) * limit.refillPerMillisecond >= Double(limit.count)
    }

    mutating func refill(limit: RateLimit, now: Int64) {
        guard now > updatedAt else { return }
        tokens = min(Double(limit.count), tokens + Double(now - updatedAt) * limit.refillPerMillisecond)
        updatedAt = now
    }
}
