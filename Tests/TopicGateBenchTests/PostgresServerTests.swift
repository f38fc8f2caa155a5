import Foundation
import ProcessSupport
import Testing

@testable import TopicGateBench

/// The PostgreSQL the bench starts for `--postgres` and `--gateways`.
@Suite("Benchmark: its PostgreSQL")
struct PostgresServerTests {
    @Test("--postgres-setting reaches the server it starts, after the bench's own settings")
    func settings() async throws {
        let server = try await PostgresServer.start(settings: ["work_mem=7MB", "fsync=on"])
        defer { Task { await server.stop() } }
        #expect(try await show("work_mem", on: server) == "7MB")
        // The bench's own `fsync=off` for a server that need not be durable, overridden.
        #expect(try await show("fsync", on: server) == "on")
    }

    /// `SHOW name` through `psql`, as an operator looking inside the bench's server would
    /// (spawned as `ChildProcess`: Foundation's `Process.run()` now and then crashes the process).
    func show(_ name: String, on server: PostgresServer) async throws -> String {
        let output = Pipe()
        let psql = try ChildProcess.spawn(
            executable: "/usr/bin/psql", arguments: [server.url(), "-Atc", "SHOW \(name)"],
            output: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        _ = await psql.exit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
