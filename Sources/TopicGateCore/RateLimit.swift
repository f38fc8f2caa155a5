/// A limit of `count` events per `period`, allowing bursts of up to `count`: written
/// `20/min`, `5/s`, `1000/h` or `1000/day` in flags.
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    public var count: Int
    public var period: Duration

    public init(count: Int, period: Duration) {
        self.count = max(1, count)
        self.period = max(.milliseconds(1), period)
    }

    /// Parses `N/s`, `N/min`, `N/h` or `N/day`; nil for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let count = Int(parts[0]), count > 0 else { return nil }
        let period: Duration
        switch parts[1] {
        case "s", "sec", "second": period = .seconds(1)
        case "m", "min", "minute": period = .seconds(60)
        case "h", "hour": period = .seconds(3_600)
        case "d", "day": period = .seconds(86_400)
        default: return nil
        }
        self.init(count: count, period: period)
    }

    public var description: String {
        switch period {
        case .seconds(1): "\(count)/s"
        case .seconds(60): "\(count)/min"
        case .seconds(3_600): "\(count)/h"
        case .seconds(86_400): "\(count)/day"
        default: "\(count)/\(period.wholeMilliseconds)ms"
        }
    }

    /// Tokens regained per millisecond.
    var refillPerMillisecond: Double { Double(count) / Double(period.wholeMilliseconds) }
}
