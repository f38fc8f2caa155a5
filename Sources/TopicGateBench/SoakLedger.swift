import Synchronization

/// What a soak counted, shared by its workers, its devices and its sampler: each interval's
/// request latencies, failures, memory, descriptors and the CPU the machine's host took; the
/// pushes the devices received (a copy of one they had already, as delivery at least once
/// allows, counted apart) and those the accepted requests owe them.
final class SoakLedger: Sendable {
    /// What finished in one interval.
    struct Interval: Sendable {
        /// The requests' latencies, by kind of request ("send", "subscribe", …).
        var latenciesByKind: [String: [Duration]] = [:]
        /// Every request's latency, whatever its kind.
        var latencies: [Duration] { latenciesByKind.values.flatMap { $0 } }
        var failures = 0
        /// The gateways' peak resident memory in the interval, in bytes.
        var peakBytes: Int?
        /// The gateways' open descriptors at its end.
        var descriptors: Int?
        /// The share of the machine's CPU time its host took in the interval (steal).
        var stolen: Double?
    }

    private let state: Mutex<[Interval]>
    /// Each push a device received, by device and payload (a copy has the same payload: the
    /// push message ID or command ID is in it).
    private let received = Mutex<Set<Int>>([])
    private let copies = Atomic<Int>(0)
    private let owing = Atomic<Int>(0)

    init(intervals: Int) {
        state = Mutex([Interval](repeating: Interval(), count: max(1, intervals)))
    }

    var intervals: [Interval] { state.withLock { $0 } }
    /// Distinct pushes the devices received.
    var delivered: Int { received.withLock { $0.count } }
    /// Pushes a device received again.
    var duplicates: Int { copies.load(ordering: .relaxed) }
    var owed: Int { owing.load(ordering: .relaxed) }

    /// A request of `kind` that finished in interval `index` (the last one for any later).
    func record(_ latency: Duration, kind: String, succeeded: Bool, in index: Int) {
        state.withLock {
            let index = min(max(0, index), $0.count - 1)
            $0[index].latenciesByKind[kind, default: []].append(latency)
            if !succeeded { $0[index].failures += 1 }
        }
    }

    /// For each kind of request (by name): its p99 in the first interval, and the highest p99
    /// of a later interval with that interval's index. Empty with a single interval.
    static func worstLaterP99(_ intervals: [Interval]) -> [(kind: String, first: Duration, worst: Duration, at: Int)] {
        guard let first = intervals.first, intervals.count > 1 else { return [] }
        return first.latenciesByKind.keys.sorted().compactMap { kind in
            let p99s = intervals.map { LatencyStatistics($0.latenciesByKind[kind] ?? []).p99 }
            guard let worst = p99s.indices.dropFirst().max(by: { p99s[$0] < p99s[$1] }) else { return nil }
            return (kind, p99s[0], p99s[worst], worst)
        }
    }

    func sample(_ index: Int, peakBytes: Int?, descriptors: Int?, stolen: Double?) {
        state.withLock {
            guard $0.indices.contains(index) else { return }
            $0[index].peakBytes = peakBytes
            $0[index].descriptors = descriptors
            $0[index].stolen = stolen
        }
    }

    /// Device `device` received `payload`.
    func pushArrived(device: Int, payload: some Collection<UInt8>) {
        var hasher = Hasher()
        hasher.combine(device)
        for byte in payload { hasher.combine(byte) }
        let key = hasher.finalize()
        if !received.withLock({ $0.insert(key).inserted }) { copies.add(1, ordering: .relaxed) }
    }

    func owe(_ pushes: Int) { owing.add(pushes, ordering: .relaxed) }
}
