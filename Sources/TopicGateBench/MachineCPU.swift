import Foundation

/// The whole machine's CPU time by state, from the first line of `/proc/stat` (Linux), in
/// clock ticks. On a virtual machine `steal` is the time its host gave to someone else while this
/// machine had work to run: in an interval with some, a latency can rise for that reason alone.
struct MachineCPU: Sendable, Equatable {
    /// user, nice, system, idle, iowait, irq, softirq, steal (the guest times are inside user).
    let ticks: [Int64]

    /// The machine's counters now; nil where `/proc/stat` cannot be read.
    static func now() -> MachineCPU? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        return MachineCPU(parsing: text)
    }

    /// From the text of `/proc/stat`; nil without a `cpu` line of at least eight counters.
    init?(parsing text: String) {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return nil }
        let ticks = line.split(separator: " ").dropFirst().prefix(8).compactMap { Int64($0) }
        guard ticks.count == 8 else { return nil }
        self.ticks = ticks
    }

    /// The share (0…1) of the machine's time from `earlier` to this sample that its host took
    /// (steal); nil when no time passed.
    func stolenShare(since earlier: MachineCPU) -> Double? {
        let spent = zip(ticks, earlier.ticks).map { $0 - $1 }
        let total = spent.reduce(0, +)
        guard total > 0 else { return nil }
        return Double(spent[7]) / Double(total)
    }
}
