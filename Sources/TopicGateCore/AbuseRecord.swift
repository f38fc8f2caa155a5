/// What the abuse controls remember of one key (an address, an account, an app): its token
/// bucket, its lockout, and the checks of it in flight. Kept in memory by one gateway, or in the
/// database by a fleet, where gateways read and write it in turn.
public struct AbuseRecord: Sendable, Hashable {
    public var bucket: TokenBucket?
    public var lockout: LockoutState?
    /// When each check in flight stops counting if its gateway never ends it (it died).
    public var pendingUntil: [UnixMillis]
    /// After this time the record says nothing that no record would not: it may be dropped.
    public var expiresAt: UnixMillis

    public init(
        bucket: TokenBucket? = nil, lockout: LockoutState? = nil, pendingUntil: [UnixMillis] = [],
        expiresAt: UnixMillis = 0
    ) {
        self.bucket = bucket
        self.lockout = lockout
        self.pendingUntil = pendingUntil
        self.expiresAt = expiresAt
    }

    /// The checks in flight at `now`.
    public func pending(now: UnixMillis) -> Int { pendingUntil.count { $0 > now } }

    /// Counts one more check in flight, which stops counting at `until` at the latest.
    public mutating func beginCheck(until: UnixMillis) {
        pendingUntil.append(until)
    }

    /// Ends one check in flight (the one that would stop counting first).
    public mutating func endCheck(now: UnixMillis) {
        pendingUntil.removeAll { $0 <= now }
        if let first = pendingUntil.indices.min(by: { pendingUntil[$0] < pendingUntil[$1] }) {
            pendingUntil.remove(at: first)
        }
    }

    /// The record as one JSON object.
    public var json: JSONValue {
        var object: [String: JSONValue] = ["expiresAt": expiresAt.json]
        if let bucket { object["bucket"] = ["tokens": .double(bucket.tokens), "updatedAt": bucket.updatedAt.json] }
        if let lockout {
            object["lockout"] = [
                "failures": .int(Int64(lockout.failures)), "lastFailureAt": lockout.lastFailureAt.json,
                "lockedUntil": lockout.lockedUntil.json,
            ]
        }
        if !pendingUntil.isEmpty { object["pendingUntil"] = .array(pendingUntil.map(\.json)) }
        return .object(object)
    }

    /// Nil when `json` is not a record this type wrote.
    public init?(json: JSONValue) {
        guard let object = json.objectValue, let expiresAt = object["expiresAt"]?.intValue else { return nil }
        self.init(expiresAt: UnixMillis(expiresAt))
        if let bucket = object["bucket"]?.objectValue {
            guard let tokens = bucket["tokens"]?.doubleValue, let updatedAt = bucket["updatedAt"]?.intValue else {
                return nil
            }
            self.bucket = TokenBucket(tokens: tokens, updatedAt: UnixMillis(updatedAt))
        }
        if let lockout = object["lockout"]?.objectValue {
            guard let failures = lockout["failures"]?.intValue, let last = lockout["lastFailureAt"]?.intValue,
                let until = lockout["lockedUntil"]?.intValue
            else { return nil }
            self.lockout = LockoutState(
                failures: Int(failures), lastFailureAt: UnixMillis(last), lockedUntil: UnixMillis(until))
        }
        pendingUntil = object["pendingUntil"]?.arrayValue?.compactMap { $0.intValue.map { UnixMillis($0) } } ?? []
    }
}
