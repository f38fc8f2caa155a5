import Foundation

/// What Mosquitto's own log says about why it stopped: it writes each fatal condition as an
/// `Error:` line (`1764100000: Error: Unable to write pid file.`, `Error: Address already in
/// use`, a bad configuration line), usually just before it exits.
enum MosquittoLog {
    /// The error lines of `log` from its last start on, without their timestamps; empty when it
    /// reported none.
    static func errors(in log: String) -> [String] {
        let lines = log.split(separator: "\n").map(String.init)
        // A log appended to by several starts: only the last one's lines count.
        let lastStart = lines.lastIndex(where: { $0.contains("mosquitto version") && $0.contains("starting") })
        return lines[(lastStart ?? 0)...].compactMap { line in
            guard let range = line.range(of: "Error: ") else { return nil }
            return String(line[range.lowerBound...]).trimmingCharacters(in: .whitespaces)
        }
    }

    /// The message for a broker that did not come up: the causes it logged, or what is known
    /// without them.
    static func failure(log: String, logPath: String, address: String, exitStatus: Int32?) -> String {
        let errors = errors(in: log)
        let how =
            if let exitStatus { "exited with status \(exitStatus)" } else { "did not listen within 10 s" }
        let broker = "The embedded Mosquitto for \(address) \(how)"
        if errors.isEmpty {
            let tail = log.split(separator: "\n").suffix(5).joined(separator: "\n")
            return broker + " and logged no error; its log, \(logPath), ends with:\n" + tail
        }
        return broker + ": " + errors.joined(separator: "; ") + " (its log: \(logPath))"
    }
}
