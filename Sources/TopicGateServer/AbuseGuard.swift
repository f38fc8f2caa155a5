import Synchronization
import TopicGateCore

/// The live state of `AbuseControls`: token buckets for sign-ups and login failures, lockouts
/// for login names, external IDs and client addresses. In memory, per gateway process; bounded
/// (idle keys are dropped as the tables grow).
final class AbuseGuard: Sendable {
    /// What a bucket or lockout counts.
    enum Key: Hashable {
        case signupsFromAddress(String)
        case signupsInApp(AppID)
        case loginFailuresFromAddress(String)
        case loginFailuresInApp(AppID)
        /// A login name (lower-cased), `EMAIL:…`, `PHONE:…` or `VENDOR_THING_ID:…` in an app.
        case account(AppID, String)
        case link(AppID, provider: String, externalID: String)
        case linkLoginsFromAddress(String)
    }

    private struct State {
        var buckets: [Key: TokenBucket] = [:]
        var lockouts: [Key: LockoutState] = [:]
        var operations = 0
    }

    let controls: AbuseControls
    let time: TimeSource
    /// Past this many remembered keys, idle ones are dropped.
    let pruneThreshold: Int
    private let state = Mutex(State())

    init(controls: AbuseControls, time: TimeSource, pruneThreshold: Int = 50_000) {
        self.controls = controls
        self.time = time
        self.pruneThreshold = pruneThreshold
    }

    /// Counts a new user from `address` in `appID`; 429 when either budget is spent.
    func admitSignup(appID: AppID, address: String?) throws(KiiError) {
        let now = time.now()
        var limits: [(Key, RateLimit)] = []
        if let limit = controls.signupsPerAddress, let address { limits.append((.signupsFromAddress(address), limit)) }
        if let limit = controls.signupsPerApp { limits.append((.signupsInApp(appID), limit)) }
        let waiting = state.withLock { state -> Int64 in
            let waits = limits.map { key, limit in state.buckets[key, default: TokenBucket(limit: limit, now: now)].wait(limit: limit, now: now) }
            guard let longest = waits.max(), longest > 0 else {
                for (key, limit) in limits { _ = state.buckets[key]!.take(limit: limit, now: now) }
                prune(&state, now: now)
                return 0
            }
            return longest
        }
        if waiting > 0 {
            throw KiiError.tooManyRequests("Too many new users from this address or for this app; try again later.", retryAfterMillis: waiting)
        }
    }

    /// 429 while the login-failure budget of `address` or of `appID` is spent.
    func requireLoginBudget(appID: AppID, address: String?) throws(KiiError) {
        let now = time.now()
        let waiting = state.withLock { state in
            failureLimits(appID: appID, address: address).map { key, limit in
                state.buckets[key]?.wait(limit: limit, now: now) ?? 0
            }.max() ?? 0
        }
        if waiting > 0 {
            throw KiiError.tooManyRequests("Too many failed logins from this address or for this app; try again later.", retryAfterMillis: waiting)
        }
    }

    /// Milliseconds `key` stays locked (0: it is not).
    func remainingLock(_ key: Key) -> Int64 {
        let now = time.now()
        return state.withLock { $0.lockouts[key]?.remainingLock(now: now) ?? 0 }
    }

    /// Records a failed login: it counts against the address's and the app's failure budgets
    /// and toward the lockout of each of `lockouts` (with its policy).
    func recordLoginFailure(appID: AppID, address: String?, lockouts: [(Key, LockoutPolicy)]) {
        let now = time.now()
        let limits = failureLimits(appID: appID, address: address)
        state.withLock { state in
            for (key, limit) in limits {
                state.buckets[key, default: TokenBucket(limit: limit, now: now)].spend(limit: limit, now: now)
            }
            for (key, policy) in lockouts {
                state.lockouts[key, default: LockoutState()].recordFailure(policy: policy, now: now)
            }
            prune(&state, now: now)
        }
    }

    /// Forgets the failures of `key` (after a successful login).
    func reset(_ key: Key) {
        _ = state.withLock { $0.lockouts.removeValue(forKey: key) }
    }

    private func failureLimits(appID: AppID, address: String?) -> [(Key, RateLimit)] {
        var limits: [(Key, RateLimit)] = []
        if let limit = controls.loginFailuresPerAddress, let address { limits.append((.loginFailuresFromAddress(address), limit)) }
        if let limit = controls.loginFailuresPerApp { limits.append((.loginFailuresInApp(appID), limit)) }
        return limits
    }

    /// Every few thousand operations past the threshold, drops full buckets and forgotten
    /// lockouts: what remains is only what still limits someone.
    private func prune(_ state: inout State, now: Int64) {
        state.operations += 1
        guard state.buckets.count + state.lockouts.count > pruneThreshold, state.operations % 1024 == 0 else { return }
        state.buckets = state.buckets.filter { key, bucket in
            guard let limit = limit(of: key) else { return false }
            return !bucket.isFull(limit: limit, now: now)
        }
        state.lockouts = state.lockouts.filter { key, lockout in
            !lockout.isForgotten(policy: policy(of: key), now: now)
        }
    }

    private func limit(of key: Key) -> RateLimit? {
        switch key {
        case .signupsFromAddress: controls.signupsPerAddress
        case .signupsInApp: controls.signupsPerApp
        case .loginFailuresFromAddress: controls.loginFailuresPerAddress
        case .loginFailuresInApp: controls.loginFailuresPerApp
        case .account, .link, .linkLoginsFromAddress: nil
        }
    }

    private func policy(of key: Key) -> LockoutPolicy {
        if case .linkLoginsFromAddress = key { return controls.addressLockout }
        return controls.accountLockout
    }
}
