/// When a soak worker starts its requests under `--soak-rate`: the workers together offer a
/// fixed number of requests a second, each worker one every `gap` (workers ÷ rate), starting
/// at `began` and offset from one another by a fraction of the gap so that their requests
/// spread over it. A request's latency counts from the time it was due, not from the time it
/// went out: a gateway that falls behind shows it in the latencies of every request that waited,
/// as a user's devices would feel it (no request is skipped to catch up).
///
/// Without a rate (`gap` nil) a worker sends its next request as soon as the last answered: the
/// soak then runs at the fleet's capacity and its latencies are mostly time in queues.
struct SoakPace: Sendable {
    /// Time between two requests of one worker; nil: none (as fast as answers come).
    let gap: Duration?
    private let began: ContinuousClock.Instant
    private var sent = 0

    /// Worker `worker` of `workers`, together offering `rate` requests a second (nil: unpaced).
    init(rate: Double?, worker: Int, workers: Int, began: ContinuousClock.Instant) {
        guard let rate, rate > 0 else {
            gap = nil
            self.began = began
            return
        }
        let gap = Duration.seconds(Double(workers) / rate)
        self.gap = gap
        self.began = began + gap * (Double(worker) / Double(max(1, workers)))
    }

    /// When the next request is due (`now` when unpaced), counting it as sent.
    mutating func nextDue(now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        guard let gap else { return now }
        defer { sent += 1 }
        return began + gap * sent
    }
}
