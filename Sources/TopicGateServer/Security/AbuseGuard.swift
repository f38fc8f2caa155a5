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
        /// One account's password in an app: `user:ID` or `thing:ID` once the account is
        /// resolved, else the normalised identifier that was presented (`LOGIN_NAME:…`,
        /// `EMAIL:…`, `PHONE:…`, `VENDOR_THING_ID:…`), so that every spelling of one account
        /// shares one lock.
        case account(AppID, String)
        case link(AppID, provider: String, externalID: String)
        case linkLoginsFromAddress(String)
        case statesOfThing(AppID, ThingID)
    }

    private struct State {
        var buckets: [Key: TokenBucket] = [:]
        var lockouts: [Key: LockoutState] = [:]
        /// Attempts admitted and not yet ended, per lockout key.
        var pending: [Key: Int] = [:]
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

    /// Counts a new user or thing from `address` in `appID`; 429 when either budget is spent.
    func admitSignup(appID: AppID, address: String?) throws(KiiError) {
        let now = time.now()
        var limits: [(Key, RateLimit)] = []
        if let limit = controls.signupsPerAddress, let address { limits.append((.signupsFromAddress(address), limit)) }
        if let limit = controls.signupsPerApp { limits.append((.signupsInApp(appID), limit)) }
        let waiting = state.withLock { state -> Int64 in
            let waits = limits.map { key, limit in
                state.buckets[key, default: TokenBucket(limit: limit, now: now)].wait(limit: limit, now: now)
            }
            guard let longest = waits.max(), longest > 0 else {
                for (key, limit) in limits { _ = state.buckets[key]!.take(limit: limit, now: now) }
                prune(&state, now: now)
                return 0
            }
            return longest
        }
        if waiting > 0 {
            throw KiiError.tooManyRequests(
                "Too many new users from this address or for this app; try again later.", retryAfterMillis: waiting)
        }
    }

    /// Counts one state report of `thing`; 429 once its budget is spent.
    func admitState(appID: AppID, thing: ThingID) throws(KiiError) {
        guard let limit = controls.statesPerThing else { return }
        let now = time.now()
        let key = Key.statesOfThing(appID, thing)
        let waiting = state.withLock { state in
            defer { prune(&state, now: now) }
            return state.buckets[key, default: TokenBucket(limit: limit, now: now)].take(limit: limit, now: now)
        }
        if waiting > 0 {
            throw KiiError.tooManyRequests(
                "This thing reports its state too often; try again later.", retryAfterMillis: waiting)
        }
    }

    /// A password or secret check that has been admitted and not yet decided. Until it ends it
    /// counts as a failure: its budget tokens are spent and its lockout keys hold a pending
    /// attempt, so concurrent guesses cannot all slip in before the first failures are counted.
    struct Attempt: Sendable {
        let budgets: [Key]
        let lockouts: [Key]
    }

    /// Why an attempt was not admitted.
    enum Refusal: Error, Sendable {
        /// The failure budget of the address or the app is spent.
        case budgetSpent(retryAfterMillis: Int64)
        /// A lockout key is locked.
        case locked(retryAfterMillis: Int64)
        /// As many attempts as a lockout key admits are being checked now (`admit` waits for
        /// them, and says so only when they stayed in flight for as long as it waits).
        case busy
    }

    /// 429 for a check that waited for its turn as long as `admit` waits.
    static func busy() -> KiiError {
        KiiError.tooManyRequests("Too many checks of this account at once; try again.", retryAfterMillis: 1_000)
    }

    /// `begin`, waiting while a key is only busy: concurrent checks of one account (a user's
    /// devices logging in at once) queue behind the ones in flight, which end within a hash's
    /// time, instead of being refused as locked. Guessing gains nothing: no more checks run at
    /// once than the lock admits, and once failures lock the key the waiting ones are refused.
    /// A check still waiting after 30 s (a machine far behind) is `busy`: a 429 to retry, never
    /// a lock, since nothing failed.
    func admit(appID: AppID, address: String?, lockouts: [Key], appBudget: Bool = true) async throws(Refusal)
        -> Attempt
    {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            do throws(Refusal) {
                return try begin(appID: appID, address: address, lockouts: lockouts, appBudget: appBudget)
            } catch .busy {
                guard ContinuousClock.now < deadline else { throw .busy }
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    /// Admits one check of a secret, atomically: refused when a failure budget is spent or a
    /// lockout key is locked (or would be, if the attempts in flight all failed); otherwise the
    /// attempt is reserved. `lockouts` are the keys it counts toward (the account first);
    /// `appBudget: false` leaves the app's failure budget out (the admin's client credentials
    /// must not be locked out by users' wrong passwords). Every admitted attempt must be ended
    /// with `end(_:succeeded:)`.
    func begin(appID: AppID, address: String?, lockouts: [Key], appBudget: Bool = true) throws(Refusal) -> Attempt {
        let now = time.now()
        var limits = failureLimits(appID: appID, address: address)
        if !appBudget { limits.removeAll { if case .loginFailuresInApp = $0.0 { true } else { false } } }
        let outcome = state.withLock { state -> Result<Attempt, Refusal> in
            let waiting = limits.map { key, limit in state.buckets[key]?.wait(limit: limit, now: now) ?? 0 }.max() ?? 0
            if waiting > 0 { return .failure(.budgetSpent(retryAfterMillis: waiting)) }
            for key in lockouts {
                let lockout = state.lockouts[key] ?? LockoutState()
                let pending = state.pending[key, default: 0]
                switch lockout.admission(policy: policy(of: key), pending: pending, now: now) {
                case .admitted: continue
                case .busy: return .failure(.busy)
                case .locked: return .failure(.locked(retryAfterMillis: max(lockout.remainingLock(now: now), 1_000)))
                }
            }
            for (key, limit) in limits {
                state.buckets[key, default: TokenBucket(limit: limit, now: now)].spend(limit: limit, now: now)
            }
            for key in lockouts { state.pending[key, default: 0] += 1 }
            prune(&state, now: now)
            return .success(Attempt(budgets: limits.map(\.0), lockouts: lockouts))
        }
        return try outcome.get()
    }

    /// Ends an admitted attempt. A failure counts toward each lockout key; a success gives the
    /// budget tokens back and forgets the failures of the account keys (an address's lockout
    /// keeps counting).
    func end(_ attempt: Attempt, succeeded: Bool) {
        let now = time.now()
        state.withLock { state in
            for key in attempt.lockouts {
                let pending = state.pending[key, default: 1] - 1
                state.pending[key] = pending > 0 ? pending : nil
                if succeeded {
                    if case .linkLoginsFromAddress = key { continue }
                    state.lockouts.removeValue(forKey: key)
                } else {
                    state.lockouts[key, default: LockoutState()].recordFailure(policy: policy(of: key), now: now)
                }
            }
            if succeeded {
                for key in attempt.budgets {
                    guard let limit = limit(of: key) else { continue }
                    state.buckets[key]?.refund(limit: limit, now: now)
                }
            }
        }
    }

    private func failureLimits(appID: AppID, address: String?) -> [(Key, RateLimit)] {
        var limits: [(Key, RateLimit)] = []
        if let limit = controls.loginFailuresPerAddress, let address {
            limits.append((.loginFailuresFromAddress(address), limit))
        }
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
        case .statesOfThing: controls.statesPerThing
        case .account, .link, .linkLoginsFromAddress: nil
        }
    }

    private func policy(of key: Key) -> LockoutPolicy {
        if case .linkLoginsFromAddress = key { return controls.addressLockout }
        return controls.accountLockout
    }
}
