/// Waiting for something to go quiet before a measurement: a sample every half second until the
/// last one says it was quiet, at most a limit.
enum QuietWait {
    /// Calls `quietSince` every half second (with nothing before its first call) until it
    /// answers true, at most `limit`; how long it waited and whether it went quiet.
    static func poll(limit: Duration, quietSince: () -> Bool) async throws -> (waited: Duration, quiet: Bool) {
        let began = ContinuousClock.now
        while ContinuousClock.now - began < limit {
            try await Task.sleep(for: .milliseconds(500))
            if quietSince() { return (ContinuousClock.now - began, true) }
        }
        return (ContinuousClock.now - began, false)
    }
}
