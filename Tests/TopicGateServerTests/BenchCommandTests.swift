import Foundation
import Testing
import TestSupport

/// `topicgate bench --quick` as a user runs it: every scenario prints its figure, its
/// baseline and the ratio (a check that the benchmark works, not a timed test).
@Suite("topicgate bench")
struct BenchCommandTests {
    @Test("A quick run prints every scenario with a baseline and a ratio, as JSON")
    func quickRun() async throws {
        let process = Process()
        process.executableURL = ServerProcess.executable
        process.arguments = ["bench", "--quick", "--json"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let rows = try #require(object["rows"] as? [[String: Any]])
        let scenarios = Set(rows.compactMap { $0["scenario"] as? String })
        #expect(scenarios == ["send → device", "fan-out 20", "commands", "authorization", "sign-up", "connections"])
        for row in rows {
            #expect((row["topicgate"] as? Double ?? 0) > 0, "\(row)")
            #expect((row["ratio"] as? Double ?? 0) > 0, "\(row)")
        }
        #expect(rows.contains { $0["gatewayPeakBytes"] as? Int ?? 0 > 0 })
    }
}
