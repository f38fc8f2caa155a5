import TopicGateCore

/// The live state of `AbuseControls`: token buckets for sign-ups and login failures, lockouts
/// for login names, external IDs and client addresses. Its records are in an `AbuseLedger`: in
/// memory for one gateway, in the shared database for a fleet (so that two gateways never give
/// twice the budget, and a lockout on one holds on all).
final class AbuseGuard: Sendable {
    /// What a bucket or lockout counts.
    enum Key: Hashable {
        case signupsFromAddress(String)
        case signupsInApp(AppID)
        case loginFailuresFromAddress(String)
        case loginFailuresInApp(AppID)
        /// Failed logins for names that match no account: a budget of their own, so that
        /// guessing names spends nothing real users' logins need.
        case unknownNameFailuresInApp(AppID)
        /// One account's password in an app: `user:ID` or `thing:ID` once the account is
        /// resolved, else the normalised identifier that was presented (`LOGIN_NAME:…`,
        /// `EMAIL:…`, `PHONE:…`, `VENDOR_THING_ID:…`), so that every spelling of one account
        /// shares one lock.
        case account(AppID, String)
        case link(AppID, provider: String, externalID: String)
        case linkLoginsFromAddress(String)
        case statesOfThing(AppID, ThingID)
        case anonymousTokensFromAddress(String)

        /// The key's name in the ledger (its parts apart by newlines, which no part holds).
        var ledgerKey: String {
            switch self {
            case .signupsFromAddress(let address): "signups-from\n\(address)"
            case .signupsInApp(let app): "signups-in\n\(app.rawValue)"
            case .loginFailuresFromAddress(let address): "login-failures-from\n\(address)"
            case .loginFailuresInApp(let app): "login-failures-in\n\(app.rawValue)"
            case .unknownNameFailuresInApp(let app): "unknown-name-failures-in\n\(app.rawValue)"
            case .account(let app, let account): "account\n\(app.rawValue)\n\(account)"
            case .link(let app, let provider, let externalID): "link\n\(app.rawValue)\n\(provider)\n\(externalID)"
            case .linkLoginsFromAddress(let address): "link-logins-from\n\(address)"
            case .statesOfThing(let app, let thing): "states\n\(app.rawValue)\n\(thing.rawValue)"
            case .anonymousTokensFromAddress(let address): "anonymous-tokens-from\n\(address)"
            }
        }
    }

    let controls: AbuseControls
    let time: TimeSource
    let ledger: any AbuseLedger
    /// Waiting checks of one account take turns trying the ledger.
    private let admissions = Turnstile()
    /// A check its gateway never ended (it died) stops counting as in flight after this.
    static let checkTimeout: Duration = .seconds(60)

    init(controls: AbuseControls, time: TimeSource, ledger: any AbuseLedger = MemoryAbuseLedger()) {
        self.controls = controls
        self.time = time
        self.ledger = ledger
    }

    /// Counts a new user or thing from `address` in `appID`; 429 when either budget is spent.
    func admitSignup(appID: AppID, address: String?) async throws(KiiError) {
        let now = time.now()
        var counted: [(Key, RateLimit)] = []
        if let limit = controls.signupsPerAddress, let address {
            counted.append((.signupsFromAddress(AddressGroup.key(address)), limit))
        }
        if let limit = controls.signupsPerApp { counted.append((.signupsInApp(appID), limit)) }
        let limits = counted
        let waiting = try await step(limits.map(\.0), now: now) { records -> Duration in
            let waits = limits.map { key, limit in
                var bucket = records[key.ledgerKey]?.bucket ?? TokenBucket(limit: limit, now: now)
                return bucket.wait(limit: limit, now: now)
            }
            guard let longest = waits.max(), longest > .zero else {
                for (key, limit) in limits {
                    var record = records[key.ledgerKey] ?? AbuseRecord()
                    var bucket = record.bucket ?? TokenBucket(limit: limit, now: now)
                    _ = bucket.take(limit: limit, now: now)
                    record.bucket = bucket
                    records[key.ledgerKey] = record
                }
                return .zero
            }
            return longest
        }
        if waiting > .zero {
            throw KiiError.tooManyRequests(
                "Too many new users from this address or for this app; try again later.", retryAfter: waiting)
        }
    }

    /// Counts one anonymous app token for `address`; 429 once its budget is spent.
    func admitAnonymousToken(address: String?) async throws(KiiError) {
        guard let limit = controls.anonymousTokensPerAddress, let address else { return }
        try await take(.anonymousTokensFromAddress(AddressGroup.key(address)), limit, "anonymous app tokens")
    }

    /// Counts one state report of `thing`; 429 once its budget is spent.
    func admitState(appID: AppID, thing: ThingID) async throws(KiiError) {
        guard let limit = controls.statesPerThing else { return }
        try await take(.statesOfThing(appID, thing), limit, "state reports for this thing")
    }

    /// Takes one from `key`'s budget; 429 naming `what` once it is spent.
    private func take(_ key: Key, _ limit: RateLimit, _ what: String) async throws(KiiError) {
        let now = time.now()
        let waiting = try await step([key], now: now) { records in
            var record = records[key.ledgerKey] ?? AbuseRecord()
            var bucket = record.bucket ?? TokenBucket(limit: limit, now: now)
            let waiting = bucket.take(limit: limit, now: now)
            record.bucket = bucket
            records[key.ledgerKey] = record
            return waiting
        }
        if waiting > .zero { throw KiiError.tooManyRequests("Too many \(what); try again later.", retryAfter: waiting) }
    }

    /// A password or secret check that has been admitted and not yet decided. Until it ends it
    /// counts as a failure: its budget tokens are spent and its lockout keys hold a pending
    /// attempt, so concurrent guesses cannot all slip in before the first failures are counted.
    struct Attempt: Sendable {
        let budgets: [Key]
        let lockouts: [Key]
        /// The app's budget for existing accounts was spent when it was admitted: the check goes
        /// on (a correct password is never refused by what others did), but slowly.
        var slowed = false
    }

    /// How long a check of an existing account waits while the app's budget is spent: guessing
    /// across many accounts slows down to this pace, the right password still gets in.
    static let slowedCheck: Duration = .seconds(1)

    /// Why an attempt was not admitted.
    enum Refusal: Error, Sendable {
        /// The failure budget of the address or the app is spent.
        case budgetSpent(retryAfter: Duration)
        /// A lockout key is locked.
        case locked(retryAfter: Duration)
        /// As many attempts as a lockout key admits are being checked now (`admit` waits for
        /// them, and says so only when they stayed in flight for as long as it waits).
        case busy
        /// The shared records could not be read (the database is unreachable).
        case unavailable
    }

    /// 429 for a check that waited for its turn as long as `admit` waits.
    static func busy() -> KiiError {
        KiiError.tooManyRequests("Too many checks of this account at once; try again.", retryAfter: .seconds(1))
    }

    /// 503 when the records shared by the gateways cannot be reached: no check without them.
    static func unavailable() -> KiiError {
        KiiError(.temporarilyUnavailable, "The service is temporarily unavailable; try again.")
    }

    /// `begin`, waiting while a key is only busy: concurrent checks of one account (a user's
    /// devices logging in at once) queue behind the ones in flight, which end within a hash's
    /// time, instead of being refused as locked. Guessing gains nothing: no more checks run at
    /// once than the lock admits, and once failures lock the key the waiting ones are refused.
    /// A check still waiting after 30 s (a machine far behind) is `busy`: a 429 to retry, never
    /// a lock, since nothing failed.
    func admit(
        appID: AppID, address: String?, lockouts: [Key], appBudget: Bool = true, knownAccount: Bool = true
    ) async throws(Refusal) -> Attempt {
        let deadline = ContinuousClock.now + .seconds(30)
        // One waiting check per account tries the ledger at a time, backing off (5 ms doubling
        // to 80 ms): on a shared ledger each try is a transaction, and many waiters trying at
        // once would crowd out the checks they wait for.
        let waitForAdmission = { () async throws(Refusal) -> Attempt in
            var pause = 5
            while true {
                do throws(Refusal) {
                    return try await self.begin(
                        appID: appID, address: address, lockouts: lockouts, appBudget: appBudget,
                        knownAccount: knownAccount)
                } catch .busy {
                    guard ContinuousClock.now < deadline else { throw .busy }
                    try? await Task.sleep(for: .milliseconds(pause))
                    pause = min(pause * 2, 80)
                }
            }
        }
        guard let account = lockouts.first?.ledgerKey else { return try await waitForAdmission() }
        return try await admissions.inTurn(account, waitForAdmission)
    }

    /// Admits one check of a secret, atomically: refused when a failure budget is spent or a
    /// lockout key is locked (or would be, if the attempts in flight all failed); otherwise the
    /// attempt is reserved. `lockouts` are the keys it counts toward (the account first);
    /// `appBudget: false` leaves the app's failure budget out (the admin's client credentials
    /// must not be locked out by users' wrong passwords). `knownAccount: false` (a name that
    /// matches no account) counts against the app's budget for unknown names, which refuses
    /// when spent; an existing account's check counts against the app's own budget, which
    /// never refuses it (the attempt is `slowed` instead), so that nobody can switch off the
    /// logins of a whole app. Every admitted attempt must be ended with `end(_:succeeded:)`.
    func begin(
        appID: AppID, address: String?, lockouts: [Key], appBudget: Bool = true, knownAccount: Bool = true
    ) async throws(Refusal) -> Attempt {
        let now = time.now()
        var counted = failureLimits(appID: appID, address: address, knownAccount: knownAccount)
        if !appBudget {
            counted.removeAll {
                switch $0.0 {
                case .loginFailuresInApp, .unknownNameFailuresInApp: true
                default: false
                }
            }
        }
        let limits = counted
        let outcome: Result<Attempt, Refusal>
        do {
            outcome = try await step(limits.map(\.0) + lockouts, now: now) { records -> Result<Attempt, Refusal> in
                var slowed = false
                let waiting =
                    limits.map { key, limit -> Duration in
                        var bucket = records[key.ledgerKey]?.bucket
                        let wait = bucket?.wait(limit: limit, now: now) ?? .zero
                        if case .loginFailuresInApp = key, wait > .zero {
                            slowed = true
                            return .zero
                        }
                        return wait
                    }.max() ?? .zero
                if waiting > .zero { return .failure(.budgetSpent(retryAfter: waiting)) }
                for key in lockouts {
                    let record = records[key.ledgerKey]
                    let lockout = record?.lockout ?? LockoutState()
                    let pending = record?.pending(now: now) ?? 0
                    switch lockout.admission(policy: self.policy(of: key), pending: pending, now: now) {
                    case .admitted: continue
                    case .busy: return .failure(.busy)
                    case .locked:
                        return .failure(.locked(retryAfter: max(lockout.remainingLock(now: now), .seconds(1))))
                    }
                }
                for (key, limit) in limits {
                    var record = records[key.ledgerKey] ?? AbuseRecord()
                    var bucket = record.bucket ?? TokenBucket(limit: limit, now: now)
                    bucket.spend(limit: limit, now: now)
                    record.bucket = bucket
                    records[key.ledgerKey] = record
                }
                for key in lockouts {
                    records[key.ledgerKey, default: AbuseRecord()].beginCheck(until: now + Self.checkTimeout)
                }
                return .success(Attempt(budgets: limits.map(\.0), lockouts: lockouts, slowed: slowed))
            }
        } catch {
            throw .unavailable
        }
        return try outcome.get()
    }

    /// Ends an admitted attempt. A failure counts toward each lockout key; a success gives the
    /// budget tokens back and forgets the failures of the account keys (an address's lockout
    /// keeps counting). When the shared records cannot be reached, the attempt stops counting
    /// as in flight after `checkTimeout`.
    func end(_ attempt: Attempt, succeeded: Bool) async {
        let now = time.now()
        // The budgets change only when a success gives their tokens back: a failure locks (and,
        // on a shared ledger, waits for) the account's rows alone, not the app-wide budget's.
        _ = try? await step(attempt.lockouts + (succeeded ? attempt.budgets : []), now: now) { records in
            for key in attempt.lockouts {
                var record = records[key.ledgerKey] ?? AbuseRecord()
                record.endCheck(now: now)
                if succeeded {
                    if case .linkLoginsFromAddress = key {} else { record.lockout = nil }
                } else {
                    var lockout = record.lockout ?? LockoutState()
                    lockout.recordFailure(policy: self.policy(of: key), now: now)
                    record.lockout = lockout
                }
                records[key.ledgerKey] = record
            }
            if succeeded {
                for key in attempt.budgets {
                    guard let limit = self.limit(of: key) else { continue }
                    records[key.ledgerKey]?.bucket?.refund(limit: limit, now: now)
                }
            }
        }
    }

    /// One step on the records of `keys` in the ledger; afterwards each record's expiry is set
    /// from what it holds, and a record that holds nothing is dropped. An unreachable ledger
    /// is a 503.
    private func step<Result: Sendable>(
        _ keys: [Key], now: UnixMillis, _ body: @escaping @Sendable (inout [String: AbuseRecord]) -> Result
    ) async throws(KiiError) -> Result {
        guard !keys.isEmpty else {
            // Nothing counted (every limit off): no step on the ledger (on a shared one, a
            // transaction).
            var none: [String: AbuseRecord] = [:]
            return body(&none)
        }
        do {
            return try await ledger.withRecords(keys.map(\.ledgerKey), now: now) { records in
                let result = body(&records)
                for key in keys {
                    guard var record = records[key.ledgerKey] else { continue }
                    record.pendingUntil.removeAll { $0 <= now }
                    var expiry = record.pendingUntil.max() ?? 0
                    if let bucket = record.bucket, let limit = self.limit(of: key) {
                        expiry = max(expiry, bucket.fullAt(limit: limit))
                    }
                    if let lockout = record.lockout {
                        expiry = max(expiry, lockout.forgottenAt(policy: self.policy(of: key)))
                    }
                    record.expiresAt = expiry
                    records[key.ledgerKey] = expiry > now ? record : nil
                }
                return result
            }
        } catch {
            throw Self.unavailable()
        }
    }

    private func failureLimits(appID: AppID, address: String?, knownAccount: Bool) -> [(Key, RateLimit)] {
        var limits: [(Key, RateLimit)] = []
        if let limit = controls.loginFailuresPerAddress, let address {
            limits.append((.loginFailuresFromAddress(AddressGroup.key(address)), limit))
        }
        if let limit = controls.loginFailuresPerApp {
            limits.append((knownAccount ? .loginFailuresInApp(appID) : .unknownNameFailuresInApp(appID), limit))
        }
        return limits
    }

    private func limit(of key: Key) -> RateLimit? {
        switch key {
        case .signupsFromAddress: controls.signupsPerAddress
        case .signupsInApp: controls.signupsPerApp
        case .loginFailuresFromAddress: controls.loginFailuresPerAddress
        case .loginFailuresInApp, .unknownNameFailuresInApp: controls.loginFailuresPerApp
        case .statesOfThing: controls.statesPerThing
        case .anonymousTokensFromAddress: controls.anonymousTokensPerAddress
        case .account, .link, .linkLoginsFromAddress: nil
        }
    }

    private func policy(of key: Key) -> LockoutPolicy {
        if case .linkLoginsFromAddress = key { return controls.addressLockout }
        return controls.accountLockout
    }
}
