/// When repeated failures lock a key (a login name, an external ID, a client address), and for
/// how long: the `failuresBeforeLock`-th failure in a row locks for `firstLock`, each further
/// failure doubles that up to `maximumLock`, and failures are forgotten after `forgetAfter`
/// without one.
public struct LockoutPolicy: Sendable, Hashable {
    public var failuresBeforeLock: Int
    public var firstLock: Duration
    public var maximumLock: Duration
    public var forgetAfter: Duration

    public init(failuresBeforeLock: Int, firstLock: Duration, maximumLock: Duration, forgetAfter: Duration) {
        self.failuresBeforeLock = max(1, failuresBeforeLock)
        self.firstLock = max(.milliseconds(1), firstLock)
        self.maximumLock = max(self.firstLock, maximumLock)
        self.forgetAfter = forgetAfter
    }

    /// The lock after `failures` failures in a row (zero: none).
    public func lock(afterFailures failures: Int) -> Duration {
        guard failures >= failuresBeforeLock else { return .zero }
        let doublings = min(failures - failuresBeforeLock, 40)
        let (lock, overflow) = firstLock.wholeMilliseconds.multipliedReportingOverflow(by: Int64(1) << doublings)
        return overflow ? maximumLock : min(.milliseconds(lock), maximumLock)
    }

    /// For one login name or external ID: five tries, then 30 s, 1 min, 2 min, … up to an hour.
    public static let perAccount = LockoutPolicy(
        failuresBeforeLock: 5, firstLock: .seconds(30), maximumLock: .seconds(3_600), forgetAfter: .seconds(86_400))
    /// For one client address (many people may share one behind a carrier's NAT): twenty
    /// tries, then the same doubling.
    public static let perAddress = LockoutPolicy(
        failuresBeforeLock: 20, firstLock: .seconds(30), maximumLock: .seconds(3_600), forgetAfter: .seconds(86_400))
}
