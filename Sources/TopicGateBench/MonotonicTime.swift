#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `CLOCK_MONOTONIC` in nanoseconds: one clock for every process on the machine, so that a
/// device holder's arrival times and the bench's send times can be compared.
enum MonotonicTime {
    static func nanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// The `ContinuousClock` instant of a monotonic reading taken in any process.
    static func instant(ofNanoseconds reading: Int64) -> ContinuousClock.Instant {
        let (now, clock) = (nanoseconds(), ContinuousClock.now)
        return clock - .nanoseconds(now - reading)
    }
}
