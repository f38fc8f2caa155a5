/// The state of one rate-limited key: a bucket of up to `limit.count` tokens that refills
/// evenly over `limit.period`. Pure: the caller passes the time in.
public struct TokenBucket: Sendable, Hashable {
    public private(set) var tokens: Double
    public private(set) var updatedAt: UnixMillis

    /// A full bucket.
    public init(limit: RateLimit, now: UnixMillis) {
        tokens = Double(limit.count)
        updatedAt = now
    }

    /// A bucket as it was kept.
    public init(tokens: Double, updatedAt: UnixMillis) {
        self.tokens = tokens
        self.updatedAt = updatedAt
    }

    /// When the bucket is full again (and so no different from a new one).
    public func fullAt(limit: RateLimit) -> UnixMillis {
        updatedAt + Self.span(ofTokens: Double(limit.count) - tokens, limit: limit)
    }

    /// How long until a token is available (zero: one is, now).
    public mutating func wait(limit: RateLimit, now: UnixMillis) -> Duration {
        refill(limit: limit, now: now)
        guard tokens < 1 else { return .zero }
        return Self.span(ofTokens: 1 - tokens, limit: limit)
    }

    /// Takes a token when one is available; otherwise takes nothing and returns how long until
    /// one will be.
    public mutating func take(limit: RateLimit, now: UnixMillis) -> Duration {
        let waiting = wait(limit: limit, now: now)
        if waiting == .zero { tokens -= 1 }
        return waiting
    }

    /// Takes a token even when none is left (the bucket never goes below empty): for events
    /// that already happened, such as a failed login.
    public mutating func spend(limit: RateLimit, now: UnixMillis) {
        refill(limit: limit, now: now)
        tokens = max(0, tokens - 1)
    }

    /// Gives back a token spent for an event that turned out not to count (a password
    /// attempt reserved before it was checked, and then right).
    public mutating func refund(limit: RateLimit, now: UnixMillis) {
        refill(limit: limit, now: now)
        tokens = min(Double(limit.count), tokens + 1)
    }

    /// True when the bucket has refilled completely (and so need not be remembered).
    public func isFull(limit: RateLimit, now: UnixMillis) -> Bool {
        tokens + Self.tokens(regainedOver: now - updatedAt, limit: limit) >= Double(limit.count)
    }

    mutating func refill(limit: RateLimit, now: UnixMillis) {
        guard now > updatedAt else { return }
        tokens = min(Double(limit.count), tokens + Self.tokens(regainedOver: now - updatedAt, limit: limit))
        updatedAt = now
    }

    /// The tokens regained over `span` (none for a span that runs backwards).
    private static func tokens(regainedOver span: Duration, limit: RateLimit) -> Double {
        Double(max(0, span.wholeMilliseconds)) * limit.refillPerMillisecond
    }

    /// How long regaining `tokens` takes, in whole milliseconds rounded up.
    private static func span(ofTokens tokens: Double, limit: RateLimit) -> Duration {
        .milliseconds(Int64((max(0, tokens) / limit.refillPerMillisecond).rounded(.up)))
    }
}
