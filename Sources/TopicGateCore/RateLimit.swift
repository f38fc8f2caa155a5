/// A limit of `count` events per `periodMillis`, allowing bursts of up to `count`: written
/// `20/min`, `5/s`, `1000/h` or `1000/day` in flags.
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    public var count: Int
    public var periodMillis: Int64

    public init(count: Int, periodMillis: Int64) {
        self.count = max(1, count)
        self.periodMillis = max(1, periodMillis)
    }

    /// Parses `N/s`, `N/min`, `N/h` or `N/day`; nil for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let count = Int(parts[0]), count > 0 else { return nil }
        let period: Int64
        switch parts[1] {
        case "s", "sec", "second": period = 1_000
        case "m", "min", "minute": period = 60_000
        case "h", "hour": period = 3_600_000
        case "d", "day": period = 86_400_000
        default: return nil
        }
        self.init(count: count, periodMillis: period)
    }

    public var description: String {
        switch periodMillis {
        case 1_000: "\(count)/s"
        case 60_000: "\(count)/min"
        case 3_600_000: "\(count)/h"
        case 86_400_000: "\(count)/day"
        default: "\(count)/\(periodMillis)ms"
        }
    }

    /// Tokens regained per millisecond.
    var refillPerMillisecond: Double { Double(count) / Double(periodMillis) }
}
