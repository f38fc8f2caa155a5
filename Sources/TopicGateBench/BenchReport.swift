import Foundation

/// The rows as a table for people and as JSON for machines.
public enum BenchReport {
    public static func table(_ rows: [BenchRow]) -> String {
        var lines = [["scenario", "metric", "TopicGate", "baseline", "TopicGate/baseline", "gateway peak RSS"]]
        let repeated = rows.map(\.runs).max() ?? 1
        if repeated > 1 { lines[0].append("lowest–highest of \(repeated) runs") }
        for row in rows {
            var line = [
                row.scenario, row.metric, format(row.topicGate, row.unit),
                row.baseline.map { format($0, row.unit) + (row.baselineName == "target" ? " (target)" : "") } ?? "–",
                row.ratio.map(ratio) ?? "–",
                row.gatewayPeakBytes.map { String(format: "%.0f MiB", Double($0) / 1_048_576) } ?? "–",
            ]
            if repeated > 1 { line.append(row.spread.map { spread(of: row, $0) } ?? "–") }
            lines.append(line)
        }
        let widths = lines.reduce(into: [Int](repeating: 0, count: lines[0].count)) { widths, line in
            for (index, cell) in line.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        var text = ""
        for (number, line) in lines.enumerated() {
            text +=
                "| "
                + line.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: " | ") + " |\n"
            if number == 0 {
                text += "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|\n"
            }
        }
        // What each scenario's baselines are.
        var named: [String] = []
        for row in rows where !named.contains("\(row.scenario): \(row.baselineName)") {
            named.append("\(row.scenario): \(row.baselineName)")
        }
        return text + "\nBaselines:\n" + named.map { "- \($0)\n" }.joined()
    }

    public static func json(_ rows: [BenchRow]) throws -> String {
        let data = try JSONSerialization.data(
            withJSONObject: ["rows": rows.map(\.json)], options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    static func ratio(_ value: Double) -> String { String(format: value < 0.1 ? "%.3f×" : "%.2f×", value) }

    /// `0.81–0.87×`, or the row's own figures when it has no ratio.
    static func spread(of row: BenchRow, _ spread: ClosedRange<Double>) -> String {
        guard row.ratio != nil else {
            return format(spread.lowerBound, row.unit) + " – " + format(spread.upperBound, row.unit)
        }
        return String(ratio(spread.lowerBound).dropLast()) + "–" + ratio(spread.upperBound)
    }

    static func format(_ value: Double, _ unit: String) -> String {
        switch unit {
        case "ms": String(format: "%.2f ms", value)
        case "bytes": String(format: "%.0f B", value)
        default: value >= 100 ? "\(Int(value.rounded())) \(unit)" : String(format: "%.1f", value) + " \(unit)"
        }
    }
}
