import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore

/// One version everywhere a user or a tool reads it, and a dated CHANGELOG.md entry for it.
@Suite("Version")
struct VersionTests {
    @Test("--version, the start-up line, /openapi.json, /health and CHANGELOG.md's latest release say the same version")
    func oneVersion() async throws {
        let version = TopicGateVersion.current
        #expect(try Regex(#"^\d+\.\d+\.\d+$"#).wholeMatch(in: version) != nil)

        let (status, printed) = try await DocumentationTests.topicgate(["--version"])
        #expect(status == 0)
        #expect(printed.trimmingCharacters(in: .whitespacesAndNewlines) == version)

        // The latest release in the changelog is this one, with a date.
        let changelog = try ContainerImageTests.file("CHANGELOG.md")
        let releases = changelog.split(separator: "\n").filter {
            $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]")
        }
        let latest = try #require(releases.first)
        #expect(try Regex(#"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$"#).wholeMatch(in: latest) != nil, "\(latest)")
        #expect(latest.hasPrefix("## [\(version)] - "), "\(latest)")

        let directory = TestFolder.url.appendingPathComponent("version-\(UUID())").path
        let server = ServerProcess(dataDirectory: directory, arguments: ["--broker", "none"])
        try await server.start()
        let output = try String(contentsOfFile: server.outputPath, encoding: .utf8)
        #expect(output.contains("TopicGate \(version) listening on "))
        let health = try await server.call(.get, "/health").expect(.ok)
        #expect(health.object == ["status": "ok", "version": .string(version)])
        let document = try await server.call(.get, "/openapi.json").expect(.ok)
        #expect(document.object["info"]?.objectValue?["version"] == .string(version))
        _ = try await server.stop(signal: SIGTERM)
        try? FileManager.default.removeItem(atPath: directory)
    }
}
