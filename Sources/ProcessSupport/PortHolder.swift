import Foundation

/// Who listens on a TCP port of this machine, read from `/proc` (`/proc/net/tcp` and `tcp6` for
/// the listening socket's inode, each process's `fd` folder for the socket, its `comm` for its
/// name and its `cgroup` for the systemd unit that started it). Processes of other users are
/// seen only by root: nil then.
public struct PortHolder: Sendable, Equatable {
    public let pid: Int32
    /// The program's name, as the kernel keeps it (at most 15 characters).
    public let name: String
    /// The systemd service that runs it (`mosquitto.service`), if any.
    public let unit: String?

    public init(pid: Int32, name: String, unit: String?) {
        self.pid = pid
        self.name = name
        self.unit = unit
    }

    /// The process listening on `port` (any address), or nil.
    public static func find(port: Int) -> PortHolder? {
        let inodes = Set(["/proc/net/tcp", "/proc/net/tcp6"].flatMap { listeningInodes(in: $0, port: port) })
        guard !inodes.isEmpty, let pids = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else {
            return nil
        }
        for pid in pids.compactMap(Int32.init) {
            let fds = "/proc/\(pid)/fd"
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: fds) else { continue }
            for entry in entries {
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fds)/\(entry)"),
                    target.hasPrefix("socket:["), inodes.contains(String(target.dropFirst(8).dropLast()))
                else { continue }
                let name =
                    (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
                return PortHolder(pid: pid, name: name, unit: unit(of: pid))
            }
        }
        return nil
    }

    /// The inodes of the sockets listening on `port` in a `/proc/net/tcp`-style table.
    /// Read to its end: `String(contentsOfFile:)` stops after the first page of a `/proc` table,
    /// which holds only the first few dozen sockets.
    static func listeningInodes(in table: String, port: Int) -> [String] {
        guard let file = FileHandle(forReadingAtPath: table), let data = try? file.readToEnd() else { return [] }
        try? file.close()
        return listeningInodes(table: String(decoding: data, as: UTF8.self), port: port)
    }

    /// The same, from the table's text: columns `sl local_address rem_address st … inode`, the
    /// port in hex after the colon, `0A` for LISTEN.
    public static func listeningInodes(table: String, port: Int) -> [String] {
        let wanted = String(format: "%04X", port)
        return table.split(separator: "\n").dropFirst().compactMap { line in
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            guard columns.count > 9, columns[3] == "0A", columns[1].split(separator: ":").last == Substring(wanted)
            else { return nil }
            return String(columns[9])
        }
    }

    /// The `.service` unit in the process's cgroup path, if any.
    static func unit(of pid: Int32) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8) else { return nil }
        return text.split(whereSeparator: { $0 == "/" || $0 == "\n" }).last { $0.hasSuffix(".service") }
            .map(String.init)
    }
}
