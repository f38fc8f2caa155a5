extension BenchRow {
    /// The figure a row is judged by: its ratio, or its own figure when it has no baseline.
    var judged: Double { ratio ?? topicGate }

    /// Several runs' rows as one table: for each row of the first run, the run whose judged
    /// figure is the median (the lower middle one of an even count), with the lowest and highest
    /// over every run that has the row. A row is the same row in another run when its scenario,
    /// metric and place among rows of the same name agree.
    public static func combined(_ runs: [[BenchRow]]) -> [BenchRow] {
        guard runs.count > 1, let first = runs.first else { return runs.first ?? [] }
        let keyed = runs.map(keyedByName)
        return keyedByName(first).map { key, row in
            let same = keyed.compactMap { run in run.first { $0.key == key }?.row }.sorted { $0.judged < $1.judged }
            guard let lowest = same.first, let highest = same.last else { return row }
            var median = same[(same.count - 1) / 2]
            median.runs = same.count
            median.spread = lowest.judged...highest.judged
            return median
        }
    }

    /// Each row with its name and how many rows of that name came before it.
    private static func keyedByName(_ rows: [BenchRow]) -> [(key: String, row: BenchRow)] {
        var seen: [String: Int] = [:]
        return rows.map { row in
            let name = row.scenario + "\u{0}" + row.metric
            let place = seen[name, default: 0]
            seen[name] = place + 1
            return (name + "\u{0}" + String(place), row)
        }
    }
}
