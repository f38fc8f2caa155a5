import Foundation

/// CPU time of processes, from `/proc/<pid>/stat` (Linux): user plus system time.
enum ProcessCPU {
    /// The CPU time `pid` has used since it started; nil when it does not run here.
    static func used(_ pid: pid_t) -> Duration? {
        guard let fields = statFields(pid), fields.count > 12, let user = Int64(fields[11]),
            let system = Int64(fields[12])
        else { return nil }
        let ticks = max(1, Int64(sysconf(Int32(_SC_CLK_TCK))))
        return .milliseconds((user + system) * 1000 / ticks)
    }

    /// The processes whose parent is `pid` (PostgreSQL's backends and workers under its postmaster).
    static func children(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter {
            statFields($0).map { $0.count > 1 && $0[1] == "\(pid)" } ?? false
        }
    }

    /// The fields of `/proc/<pid>/stat` after the command name (state first, so the parent is
    /// index 1 and utime, stime are 11 and 12).
    private static func statFields(_ pid: pid_t) -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }
}
