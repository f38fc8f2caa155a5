/// A moment as milliseconds since 1970: the unit of Kii's timestamps (`createdAt`,
/// `modifiedAt`, token expiries) and of the gateway's clock.
public struct UnixMillis: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    public var rawValue: Int64

    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// The same moment in whole seconds (rounded down), the unit of MQTT credentials.
    public var seconds: UnixSeconds { UnixSeconds(rawValue.quotientAndRemainder(dividingBy: 1000).quotient) }

    /// The number itself, as it was written before it had a type (pagination keys, log lines).
    public var description: String { String(rawValue) }

    /// As Kii's JSON writes a time: the number of milliseconds.
    public var json: JSONValue { .int(rawValue) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension UnixMillis: ExpressibleByIntegerLiteral {
    /// A literal moment, for fixtures and tests.
    public init(integerLiteral value: Int64) { self.init(value) }
}

extension UnixMillis {
    /// The latest moment there is: an open end of a range.
    public static let max = UnixMillis(Int64.max)

    /// `span` later (whole milliseconds).
    public static func + (moment: Self, span: Duration) -> Self { Self(moment.rawValue + span.wholeMilliseconds) }

    /// `span` earlier (whole milliseconds).
    public static func - (moment: Self, span: Duration) -> Self { Self(moment.rawValue - span.wholeMilliseconds) }

    /// How long after `earlier` this is.
    public static func - (later: Self, earlier: Self) -> Duration { .milliseconds(later.rawValue - earlier.rawValue) }
}

extension Duration {
    /// The span in whole milliseconds (rounded toward zero, saturating).
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        return scaled + attoseconds / 1_000_000_000_000_000
    }
}
