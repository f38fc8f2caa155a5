import Foundation
import Testing

@testable import TopicGateBench

/// The PostgreSQL the bench starts for `--postgres` and `--gateways`.
@Suite("Benchmark: its PostgreSQL")
struct PostgresServerTests {
    @Test("--postgres-setting reaches the server it starts, after the bench's own settings")
    func settings() async throws {
        let server = try await PostgresServer.start(settings: ["work_mem=7MB", "fsync=on"])
        defer { Task { await server.stop() } }
        #expect(try show("work_mem", on: server) == "7MB")
        // The bench's own `fsync=off` for a server that need not be durable, overridden.
        #expect(try show("fsync", on: server) == "on")
    }

    /// `SHOW name` through `psql`, as an operator looking inside the bench's server would.
    func show(_ name: String, on server: PostgresServer) throws -> String {
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        psql.arguments = [server.url(), "-Atc", "SHOW \(name)"]
        let output = Pipe()
        psql.standardOutput = output
        try psql.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        psql.waitUntilExit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
