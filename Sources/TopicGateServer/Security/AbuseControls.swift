public import TopicGateCore

/// The limits that keep anonymous sign-up and password guessing from being abused. A nil
/// rate limit is off. The defaults let a real app live: a carrier's NAT puts many people
/// behind one address, and an app that goes viral signs up thousands an hour.
public struct AbuseControls: Sendable {
    /// New users (pseudo or normal) and new things (registration, onboarding) per client
    /// address, and per app.
    public var signupsPerAddress: RateLimit? = RateLimit(count: 60, period: .seconds(3_600))
    public var signupsPerApp: RateLimit? = RateLimit(count: 10_000, period: .seconds(3_600))
    /// Failed token-endpoint and link logins per client address, and per app: past either,
    /// the token endpoint answers 429 until the budget refills.
    public var loginFailuresPerAddress: RateLimit? = RateLimit(count: 100, period: .seconds(3_600))
    public var loginFailuresPerApp: RateLimit? = RateLimit(count: 5_000, period: .seconds(3_600))
    /// Anonymous app tokens (client credentials with the app ID) per client address.
    public var anonymousTokensPerAddress: RateLimit? = RateLimit(count: 600, period: .seconds(3_600))
    /// How long an anonymous app token lives (a device takes one to onboard, at once).
    public var anonymousTokenLifetime: Duration = .seconds(3_600)
    /// States one thing may report (HTTP or MQTT); past it, 429 (HTTP) or dropped (MQTT).
    public var statesPerThing: RateLimit? = RateLimit(count: 120, period: .seconds(60))
    /// The largest state one report may carry, in bytes of JSON.
    public var maximumStateBytes = 65_536
    /// The most history rows kept per thing (the oldest go first, within the retention).
    public var maximumStatesPerThing = 10_000
    /// Lockout of one login name or one linked external ID after failed logins.
    public var accountLockout: LockoutPolicy = .perAccount
    /// Lockout of one client address after failed link logins.
    public var addressLockout: LockoutPolicy = .perAddress
    /// Whose `X-Forwarded-For` (its last hop) is taken as the client address; for everyone
    /// else it is the connection's peer.
    public var proxyTrust: ProxyTrust = .nobody
    /// What one user or thing may hold at once (nil: no cap): live installations, topics it
    /// created, subscriptions. The admin is never capped.
    public var installationsPerPrincipal: Int? = 20
    public var topicsPerPrincipal: Int? = 100
    public var subscriptionsPerPrincipal: Int? = 1_000
    /// Triggers one thing may have (nil: no cap).
    public var triggersPerThing: Int? = 100

    public init() {}

    /// Everything off (benchmarks measure the gateway, not the limits).
    public static var off: AbuseControls {
        var controls = AbuseControls()
        controls.signupsPerAddress = nil
        controls.signupsPerApp = nil
        controls.loginFailuresPerAddress = nil
        controls.loginFailuresPerApp = nil
        controls.statesPerThing = nil
        controls.anonymousTokensPerAddress = nil
        controls.installationsPerPrincipal = nil
        controls.topicsPerPrincipal = nil
        controls.subscriptionsPerPrincipal = nil
        controls.triggersPerThing = nil
        return controls
    }
}
