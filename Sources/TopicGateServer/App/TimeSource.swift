import Foundation
import TopicGateCore

/// The clock, passed in so that services and tests agree on "now" (milliseconds since 1970).
public struct TimeSource: Sendable {
    public let now: @Sendable () -> Int64

    public init(now: @escaping @Sendable () -> Int64) { self.now = now }

    /// Now, typed.
    public func millis() -> UnixMillis { UnixMillis(now()) }

    /// Now in whole seconds (MQTT credentials).
    public func seconds() -> UnixSeconds { millis().seconds }

    /// The system clock.
    public static let system = TimeSource { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}
