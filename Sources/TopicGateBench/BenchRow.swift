/// One measured line: TopicGate's figure, the raw baseline's in the same run, and the ratio.
public struct BenchRow: Sendable {
    public var scenario: String
    public var metric: String
    public var unit: String
    public var topicGate: Double
    /// The raw Mosquitto figure (or a target, said in `baselineName`).
    public var baseline: Double?
    public var baselineName: String
    /// The gateway's peak resident memory during the scenario, in bytes.
    public var gatewayPeakBytes: Int?
    /// With repetitions: how many runs the row stands for (it is the run of the median
    /// ratio, or of the median figure when there is no baseline), and the lowest and highest
    /// ratio (or figure) over them.
    public var runs = 1
    public var spread: ClosedRange<Double>?

    /// TopicGate ÷ baseline.
    public var ratio: Double? {
        guard let baseline, baseline > 0 else { return nil }
        return topicGate / baseline
    }

    var json: [String: Any] {
        var object: [String: Any] = [
            "scenario": scenario, "metric": metric, "unit": unit, "topicgate": topicGate, "baselineName": baselineName,
        ]
        if let baseline { object["baseline"] = baseline }
        if let ratio { object["ratio"] = ratio }
        if let gatewayPeakBytes { object["gatewayPeakBytes"] = gatewayPeakBytes }
        if let spread {
            object["runs"] = runs
            object["lowest"] = spread.lowerBound
            object["highest"] = spread.upperBound
        }
        return object
    }
}
