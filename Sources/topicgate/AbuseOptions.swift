import ArgumentParser
import Foundation
import TopicGateCore
import TopicGateServer

/// `serve` flags for rate limits, lockouts and the idle pseudo user cleanup. A limit reads
/// `N/s`, `N/min`, `N/h` or `N/day`, or `off`; each falls back to a `TOPICGATE_*` variable.
struct AbuseOptions: ParsableArguments {
    @Option(help: "New users per client address (env TOPICGATE_SIGNUP_LIMIT; default 60/h).")
    var signupLimit: String?

    @Option(help: "New users per app (env TOPICGATE_SIGNUP_LIMIT_PER_APP; default 10000/h).")
    var signupLimitPerApp: String?

    @Option(
        help: "Anonymous app tokens per client address (env TOPICGATE_ANONYMOUS_TOKEN_LIMIT; default 600/h).")
    var anonymousTokenLimit: String?

    @Option(help: "Failed logins per client address before 429 (env TOPICGATE_LOGIN_FAILURE_LIMIT; default 100/h).")
    var loginFailureLimit: String?

    @Option(help: "Failed logins per app before 429 (env TOPICGATE_LOGIN_FAILURE_LIMIT_PER_APP; default 5000/h).")
    var loginFailureLimitPerApp: String?

    @Flag(
        help: ArgumentHelp(
            "Take the client address from X-Forwarded-For's last hop whoever sends it (only when every request "
                + "comes through your proxy; env TOPICGATE_TRUST_FORWARDED_FOR=1)."))
    var trustForwardedFor = false

    @Option(
        help: ArgumentHelp(
            "Take X-Forwarded-For only from these proxies: addresses or IPv4 ranges, comma-separated, e.g. "
                + "172.28.0.10 or 10.0.0.0/8 (env TOPICGATE_TRUSTED_PROXIES).",
            valueName: "addresses"))
    var trustedProxies: String?

    @Option(
        help:
            "Remove pseudo users idle this many days, on a schedule (env TOPICGATE_PSEUDO_USER_IDLE_DAYS; default off)."
    )
    var pseudoUserIdleDays: Int?

    @Option(help: "Seconds between scheduled cleanups (env TOPICGATE_PSEUDO_USER_CLEANUP_INTERVAL; default 3600).")
    var pseudoUserCleanupInterval: Int?

    @Option(help: "State reports per thing (env TOPICGATE_STATE_LIMIT; default 120/min).")
    var stateLimit: String?

    @Option(help: "Largest thing state in bytes of JSON (env TOPICGATE_MAX_STATE_BYTES; default 65536).")
    var maxStateBytes: Int?

    @Option(help: "History rows kept per thing (env TOPICGATE_MAX_STATES_PER_THING; default 10000).")
    var maxStatesPerThing: Int?

    @Option(
        help: ArgumentHelp(
            "Live installations one user or thing may have, or off (env TOPICGATE_MAX_INSTALLATIONS; default 20).",
            valueName: "count"))
    var maxInstallations: String?

    @Option(
        help: ArgumentHelp(
            "Topics one user or thing may create, or off (env TOPICGATE_MAX_TOPICS; default 100).", valueName: "count"))
    var maxTopics: String?

    @Option(
        help: ArgumentHelp(
            "Subscriptions one user or thing may hold, or off (env TOPICGATE_MAX_SUBSCRIPTIONS; default 1000).",
            valueName: "count"))
    var maxSubscriptions: String?

    @Option(
        help: ArgumentHelp(
            "Thing-IF triggers one thing may have, or off (env TOPICGATE_MAX_TRIGGERS; default 100).",
            valueName: "count"))
    var maxTriggers: String?

    func apply(to configuration: inout ServerConfiguration) throws {
        let environment = ProcessInfo.processInfo.environment
        var controls = configuration.abuse
        func limit(_ flag: String?, _ variable: String, _ current: RateLimit?) throws -> RateLimit? {
            guard let text = flag ?? environment[variable] else { return current }
            if text == "off" { return nil }
            guard let parsed = RateLimit(parsing: text) else {
                throw ValidationError("'\(text)' is not a limit: write N/s, N/min, N/h, N/day or off.")
            }
            return parsed
        }
        controls.signupsPerAddress = try limit(signupLimit, "TOPICGATE_SIGNUP_LIMIT", controls.signupsPerAddress)
        controls.signupsPerApp = try limit(signupLimitPerApp, "TOPICGATE_SIGNUP_LIMIT_PER_APP", controls.signupsPerApp)
        controls.anonymousTokensPerAddress = try limit(
            anonymousTokenLimit, "TOPICGATE_ANONYMOUS_TOKEN_LIMIT", controls.anonymousTokensPerAddress)
        controls.loginFailuresPerAddress = try limit(
            loginFailureLimit, "TOPICGATE_LOGIN_FAILURE_LIMIT", controls.loginFailuresPerAddress)
        controls.loginFailuresPerApp = try limit(
            loginFailureLimitPerApp, "TOPICGATE_LOGIN_FAILURE_LIMIT_PER_APP", controls.loginFailuresPerApp)
        if let proxies = trustedProxies ?? environment["TOPICGATE_TRUSTED_PROXIES"], !proxies.isEmpty {
            guard let trust = ProxyTrust(parsing: proxies) else {
                throw ValidationError("Trusted proxies are addresses or IPv4 ranges (10.0.0.0/8), not '\(proxies)'.")
            }
            controls.proxyTrust = trust
        } else if trustForwardedFor || environment["TOPICGATE_TRUST_FORWARDED_FOR"] == "1" {
            controls.proxyTrust = .anyPeer
        }
        controls.statesPerThing = try limit(stateLimit, "TOPICGATE_STATE_LIMIT", controls.statesPerThing)
        if let bytes = try maxStateBytes ?? environment["TOPICGATE_MAX_STATE_BYTES"].map(ServerOptions.integer) {
            guard bytes >= 2 else { throw ValidationError("A state may be at least 2 bytes ({}).") }
            controls.maximumStateBytes = bytes
        }
        if let rows = try maxStatesPerThing ?? environment["TOPICGATE_MAX_STATES_PER_THING"].map(ServerOptions.integer)
        {
            guard rows >= 1 else { throw ValidationError("At least 1 state is kept per thing.") }
            controls.maximumStatesPerThing = rows
        }
        func cap(_ flag: String?, _ variable: String, _ current: Int?) throws -> Int? {
            try ServerOptions.countOrOff(flag ?? environment[variable], variable: variable, current: current)
        }
        controls.installationsPerPrincipal = try cap(
            maxInstallations, "TOPICGATE_MAX_INSTALLATIONS", controls.installationsPerPrincipal)
        controls.topicsPerPrincipal = try cap(maxTopics, "TOPICGATE_MAX_TOPICS", controls.topicsPerPrincipal)
        controls.subscriptionsPerPrincipal = try cap(
            maxSubscriptions, "TOPICGATE_MAX_SUBSCRIPTIONS", controls.subscriptionsPerPrincipal)
        controls.triggersPerThing = try cap(maxTriggers, "TOPICGATE_MAX_TRIGGERS", controls.triggersPerThing)
        configuration.abuse = controls
        if let days = try pseudoUserIdleDays
            ?? environment["TOPICGATE_PSEUDO_USER_IDLE_DAYS"].map(ServerOptions.integer)
        {
            guard days >= 1 else { throw ValidationError("Pseudo users are kept at least 1 day.") }
            configuration.pseudoUserIdleDays = days
        }
        if let seconds = try pseudoUserCleanupInterval
            ?? environment["TOPICGATE_PSEUDO_USER_CLEANUP_INTERVAL"].map(ServerOptions.integer)
        {
            guard seconds >= 1 else { throw ValidationError("The cleanup interval is at least 1 second.") }
            configuration.pseudoUserCleanupInterval = .seconds(seconds)
        }
    }
}
