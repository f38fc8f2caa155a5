/// Percentiles of a set of latencies.
struct LatencyStatistics: Sendable {
    let sorted: [Duration]

    init(_ samples: [Duration]) {
        sorted = samples.sorted()
    }

    /// The `fraction` percentile (0.5, 0.99, 0.999), nearest rank.
    func percentile(_ fraction: Double) -> Duration {
        guard !sorted.isEmpty else { return .zero }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    var p50: Duration { percentile(0.5) }
    var p99: Duration { percentile(0.99) }
    var p999: Duration { percentile(0.999) }
}

extension Duration {
    /// In milliseconds, as a Double.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }

    var seconds: Double { milliseconds / 1000 }
}
