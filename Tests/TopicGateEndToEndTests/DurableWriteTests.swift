import Foundation
import HTTPTypes
import MQTTBridge
import ProcessSupport
import TestSupport
import Testing
import TopicGateCore

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
        let commits = try await world.stopping {
            try await Self.writerCommits(of: world) {
                for _ in 0..<signUps { _ = try await world.pseudoUser() }
            }
        }
        #expect(commits.synced >= signUps, "\(signUps) sign-ups answered: \(commits)")
    }

    /// A delivered push leaves the outbox in a commit that is not synced (a crash that undid it
    /// only delivers the push again); every accepted write is still synced.
    @Test("Pushes delivered between sign-ups: each send and sign-up is synced, the pushes leave the outbox unsynced")
    func settlementsUnsynced() async throws {
        let rounds = 10
        let world = try await PushWorld.started(embedded: true)
        let scene = try await world.subscribedMember()
        let device = try await world.connectedDevice(scene.endpoint)
        defer { device.shutdown() }
        let received = ReceivedMessages(device)
        let admin = try await world.adminToken()
        let commits = try await world.stopping {
            try await Self.writerCommits(of: world) {
                for round in 1...rounds {
                    try await world.push(scene.topic, token: scene.owner.token, message: "m\(round)")
                    #expect(await received.wait(for: round).count == round)
                    // Settled (once the broker routed it): then a write of its own.
                    let settled = try await eventually {
                        try await world.call(.get, "\(world.app)/overview", token: admin).object["outboxDepth"] == 0
                    }
                    #expect(settled)
                    _ = try await world.pseudoUser()
                }
            }
        }
        // Synced: each send and each sign-up, 2 a round. Not: each round's settlement.
        #expect(commits.synced >= 2 * rounds, "\(rounds) rounds: \(commits)")
        #expect(commits.unsynced >= rounds, "\(rounds) rounds: \(commits)")
    }

    /// The writer's commits to the write-ahead log of `world`'s gateway while `body` ran, watched
    /// with strace: each frame goes out as its 24-byte header and then its page with `pwrite64`
    /// on the log, a commit's last frame naming the database's size in pages (bytes 4 to 7 of
    /// its header, 0 in the others); a synced commit is followed by `fdatasync` on the same
    /// descriptor before anything else the writer writes (its next frame, or the log's header
    /// when the log starts over after a checkpoint, which is synced on its own).
    static func writerCommits(of world: PushWorld, during body: () async throws -> Void) async throws -> (
        synced: Int, unsynced: Int
    ) {
        let trace = world.directory + ".strace"
        let log = world.directory + ".strace.log"
        defer {
            try? FileManager.default.removeItem(atPath: trace)
            try? FileManager.default.removeItem(atPath: log)
        }
        let pid = try #require(world.server.pid)
        let strace = try ChildProcess.spawn(
            executable: "/usr/bin/strace",
            arguments: ["-f", "-y", "-xx", "-e", "trace=pwrite64,fdatasync,fsync", "-o", trace, "-p", "\(pid)"],
            logPath: log)
        // strace tells on standard error once it follows every thread of the gateway.
        func said() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        let attached = try await eventually { said().contains("attached") }
        try #require(attached, "strace did not attach: \(said())")
        try await body()
        _ = await strace.stop(signal: SIGINT)
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        // `1234  pwrite64(8<\x2f\x74…>, "\x00\x00…"..., 24, 4128) = 24`, strings in hex (the
        // path too): the descriptor of each call on the log, and what a write wrote.
        let logName = "topicgate.sqlite-wal".utf8.map { "\\x" + String($0, radix: 16) }.joined() + ">"
        func logDescriptor(_ line: Substring, _ call: String) -> Substring? {
            guard let open = line.range(of: call + "("), line.contains(logName) else { return nil }
            return line[open.upperBound...].prefix { $0.isNumber }
        }
        enum Call {
            case header(commit: Bool)
            case page, sync
            /// The log's own 32-byte header, written (and synced) when the log starts over.
            case logHeader
        }
        func written(_ line: Substring) -> Call {
            let arguments = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard arguments.count >= 3 else { return .page }
            if arguments[arguments.count - 2] == "32" { return .logHeader }
            guard arguments[arguments.count - 2] == "24", let quote = line.firstIndex(of: "\"") else { return .page }
            let bytes = line[line.index(after: quote)...].prefix { $0 != "\"" }.split(separator: "\\x")
                .compactMap { UInt8($0, radix: 16) }
            return .header(commit: bytes.count >= 8 && bytes[4..<8].contains { $0 != 0 })
        }
        let writers = Set(lines.compactMap { logDescriptor($0, "pwrite64") })
        #expect(!writers.isEmpty, "no write to the log was seen: \(lines.prefix(20))")
        let calls = lines.compactMap { line -> Call? in
            if logDescriptor(line, "pwrite64") != nil { return written(line) }
            let sync = ["fdatasync", "fsync"].contains { call in
                logDescriptor(line, call).map(writers.contains) ?? false
            }
            return sync ? .sync : nil
        }
        var commits = (synced: 0, unsynced: 0)
        for (index, call) in calls.enumerated() {
            guard case .header(commit: true) = call else { continue }
            // After its page: a sync, or the next frame.
            let next = calls[(index + 1)...].first { if case .page = $0 { false } else { true } }
            if case .sync? = next { commits.synced += 1 } else { commits.unsynced += 1 }
        }
        return commits
    }
}
