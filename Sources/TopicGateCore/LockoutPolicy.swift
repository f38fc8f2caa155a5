/// When repeated failures lock a key (a login name, an external ID, a client address), and for
/// how long: the `failuresBeforeLock`-th failure in a row locks for `firstLockMillis`, each
/// further failure doubles that up to `maximumLockMillis`, and failures are forgotten after
/// `forgetAfterMillis` without one.
public struct LockoutPolicy: Sendable, Hashable {
    public var failuresBeforeLock: Int
    public var firstLockMillis: Int64
    public var maximumLockMillis: Int64
    public var forgetAfterMillis: Int64

    public init(failuresBeforeLock: Int, firstLockMillis: Int64, maximumLockMillis: Int64, forgetAfterMillis: Int64) {
        self.failuresBeforeLock = max(1, failuresBeforeLock)
        self.firstLockMillis = max(1, firstLockMillis)
        self.maximumLockMillis = max(firstLockMillis, maximumLockMillis)
        self.forgetAfterMillis = forgetAfterMillis
    }

    /// The lock after `failures` failures in a row, in milliseconds (0: none).
    public func lockMillis(afterFailures failures: Int) -> Int64 {
        guard failures >= failuresBeforeLock else { return 0 }
        let doublings = min(failures - failuresBeforeLock, 40)
        let (lock, overflow) = firstLockMillis.multipliedReportingOverflow(by: Int64(1) << doublings)
        return overflow ? maximumLockMillis : min(lock, maximumLockMillis)
    }

    /// For one login name or external ID: five tries, then 30 s, 1 min, 2 min, … up to an hour.
    public static let perAccount = LockoutPolicy(
        failuresBeforeLock: 5, firstLockMillis: 30_000, maximumLockMillis: 3_600_000, forgetAfterMillis: 86_400_000)
    /// For one client address (many people may share one behind a carrier's NAT): twenty
    /// tries, then the same doubling.
    public static let perAddress = LockoutPolicy(
        failuresBeforeLock: 20, firstLockMillis: 30_000, maximumLockMillis: 3_600_000, forgetAfterMillis: 86_400_000)
}
