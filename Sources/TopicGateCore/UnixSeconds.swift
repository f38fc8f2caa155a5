/// A moment as seconds since 1970: the unit of MQTT credentials (`exp` of a device password,
/// the expiry the broker plugin keeps for a revocation).
public struct UnixSeconds: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    public var rawValue: Int64

    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// The number itself, as it was written before it had a type.
    public var description: String { String(rawValue) }

    /// `span` later (whole seconds).
    public static func + (moment: Self, span: Duration) -> Self { Self(moment.rawValue + span.components.seconds) }

    /// `span` earlier (whole seconds).
    public static func - (moment: Self, span: Duration) -> Self { Self(moment.rawValue - span.components.seconds) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension UnixSeconds: ExpressibleByIntegerLiteral {
    /// A literal moment, for fixtures and tests.
    public init(integerLiteral value: Int64) { self.init(value) }
}
