import Foundation

/// The clock, passed in so that services and tests agree on "now" (milliseconds since 1970).
public struct TimeSource: Sendable {
    public let now: @Sendable () -> Int64

    public init(now: @escaping @Sendable () -> Int64) { self.now = now }

    /// The system clock.
    public static let system = TimeSource { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}
