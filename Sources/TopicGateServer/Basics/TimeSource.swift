import Foundation
import TopicGateCore

/// The clock, passed in so that services and tests agree on "now".
public struct TimeSource: Sendable {
    /// The clock's reading in milliseconds since 1970.
    private let reading: @Sendable () -> Int64

    public init(now: @escaping @Sendable () -> Int64) { self.reading = now }

    /// Now.
    public func now() -> UnixMillis { UnixMillis(reading()) }

    /// Now in whole seconds (MQTT credentials).
    public func seconds() -> UnixSeconds { now().seconds }

    /// The system clock.
    public static let system = TimeSource { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}
