import Foundation
import ProcessSupport
import TestSupport
import Testing

/// An accepted write is on disk before its answer: on SQLite, each commit syncs the write-ahead
/// log on the connection that wrote it. Watched from outside with strace on the running
/// gateway, as an operator would check it: a commit's pages go out with `pwrite64` on the log,
/// then `fdatasync` on the same descriptor. (The background checkpoint syncs the log too, from
/// a connection of its own: those syncs are not counted.)
@Suite("Durable writes (SQLite)")
struct DurableWriteTests {
    @Test("Ten sign-ups one after another: the writer syncs the write-ahead log at least ten times")
    func eachCommitSynced() async throws {
        let signUps = 10
        let world = try await PushWorld.started(embedded: true)
        let trace = world.directory + ".strace"
        let log = world.directory + ".strace.log"
        defer {
            try? FileManager.default.removeItem(atPath: trace)
            try? FileManager.default.removeItem(atPath: log)
        }
        let lines = try await world.stopping {
            let pid = try #require(world.server.pid)
            let strace = try ChildProcess.spawn(
                executable: "/usr/bin/strace",
                arguments: ["-f", "-y", "-e", "trace=pwrite64,fdatasync,fsync", "-o", trace, "-p", "\(pid)"],
                logPath: log)
            // strace tells on standard error once it follows every thread of the gateway.
            func said() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
            let attached = try await eventually { said().contains("attached") }
            try #require(attached, "strace did not attach: \(said())")
            for _ in 0..<signUps { _ = try await world.pseudoUser() }
            _ = await strace.stop(signal: SIGINT)
            return try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        }
        // "1234  pwrite64(8</tmp/…/topicgate.sqlite-wal>, …": the descriptor of each call on the log.
        func logDescriptor(_ line: Substring, _ call: String) -> Substring? {
            guard let open = line.range(of: call + "("), line.contains("topicgate.sqlite-wal>") else { return nil }
            return line[open.upperBound...].prefix { $0.isNumber }
        }
        let writers = Set(lines.compactMap { logDescriptor($0, "pwrite64") })
        let writerSyncs = lines.filter { line in
            ["fdatasync", "fsync"].contains { call in logDescriptor(line, call).map(writers.contains) ?? false }
        }
        #expect(!writers.isEmpty, "no write to the log was seen: \(lines.prefix(20))")
        #expect(
            writerSyncs.count >= signUps,
            "\(signUps) sign-ups answered, \(writerSyncs.count) syncs of the log by its writer (descriptors \(writers.sorted()))"
        )
    }
}
