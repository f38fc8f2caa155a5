import Foundation

/// Resident memory of a process, from `/proc/<pid>/status` (Linux).
enum ProcessMemory {
    /// Current resident set, in bytes.
    static func resident(_ pid: pid_t) -> Int? { field("VmRSS", pid) }

    /// Peak resident set since start or the last `resetPeak`, in bytes.
    static func peak(_ pid: pid_t) -> Int? { field("VmHWM", pid) }

    /// Starts a new peak (writing 5 to `clear_refs`); false where the kernel does not allow it.
    @discardableResult
    static func resetPeak(_ pid: pid_t) -> Bool {
        (try? "5".write(toFile: "/proc/\(pid)/clear_refs", atomically: false, encoding: .utf8)) != nil
    }

    static func field(_ name: String, _ pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            let number = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first
            return number.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }
}
