import Dispatch

/// The machine's monotonic clock (`CLOCK_MONOTONIC`, which `DispatchTime` reads on Linux) in
/// nanoseconds: one clock for every process on the machine, so that a device holder's arrival
/// times and the bench's send times can be compared.
enum MonotonicTime {
    static func nanoseconds() -> Int64 {
        Int64(DispatchTime.now().uptimeNanoseconds)
    }

    /// The `ContinuousClock` instant of a monotonic reading taken in any process.
    static func instant(ofNanoseconds reading: Int64) -> ContinuousClock.Instant {
        let (now, clock) = (nanoseconds(), ContinuousClock.now)
        return clock - .nanoseconds(now - reading)
    }
}
