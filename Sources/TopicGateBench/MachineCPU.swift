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

    /// The share (0…1) of the machine's time from `earlier` to this sample that was not idle
    /// (idle and iowait are); nil when no time passed.
    func busyShare(since earlier: MachineCPU) -> Double? {
        let spent = zip(ticks, earlier.ticks).map { $0 - $1 }
        let total = spent.reduce(0, +)
        guard total > 0 else { return nil }
        return Double(total - spent[3] - spent[4]) / Double(total)
    }

    /// Waits until the machine is quiet (under a tenth of its time busy over half a second), at
    /// most `limit`: a measurement that follows a phase (the brokers and the holders still
    /// taking in 100 000 connects) starts as the one it is compared with does. How long it
    /// waited; a machine still busy at `limit` is said on standard error (the figures that
    /// follow were taken beside that work).
    @discardableResult
    static func waitUntilQuiet(limit: Duration = .seconds(60)) async throws -> Duration {
        guard var before = now() else { return .zero }
        var busy: Double?
        let (waited, quiet) = try await QuietWait.poll(limit: limit) {
            // A machine whose counters cannot be read counts as quiet: nothing to wait for.
            guard let sample = now() else { return true }
            busy = sample.busyShare(since: before)
            before = sample
            return busy.map { $0 < 0.1 } ?? false
        }
        if !quiet, let busy {
            let line = "bench: the machine was still \(Int(busy * 100)) % busy after \(limit); measuring anyway\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
        return waited
    }
}
