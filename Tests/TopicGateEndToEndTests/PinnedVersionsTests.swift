import Foundation
import Testing

/// A clone, and the image, build the versions the tests ran: Package.swift names each package it
/// resolves, direct or not, with `exact:`, and `Package.resolved` (which `swift build` writes and
/// git ignores) holds no other version.
@Suite("Pinned versions")
struct PinnedVersionsTests {
    /// `owner/name` of a package URL, without `.git`, lowercased (SwiftPM's identity is the name).
    static func identity(_ url: String) -> String {
        var name = url.lowercased()
        if name.hasSuffix(".git") { name.removeLast(4) }
        return name.split(separator: "/").suffix(2).joined(separator: "/")
    }

    @Test("Every resolved package is named in Package.swift with its exact version, and nothing there floats")
    func everyPackagePinned() throws {
        let manifest = try ContainerImageTests.file("Package.swift")
        #expect(!manifest.contains("from:"), "a dependency given as a range")
        #expect(!manifest.contains("..<"), "a dependency given as a range")
        var pinned: [String: String] = [:]
        let line = try Regex(#"\.package\(url: "([^"]+)", exact: "([^"]+)""#)
        for match in manifest.matches(of: line) {
            let url = String(match.output[1].substring ?? "")
            pinned[Self.identity(url)] = String(match.output[2].substring ?? "")
        }
        #expect(pinned.count >= 15)

        let resolvedPath = ContainerImageTests.repository.appendingPathComponent("Package.resolved").path
        let data = try #require(
            FileManager.default.contents(atPath: resolvedPath), "swift build writes Package.resolved")
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let pins = try #require(object["pins"] as? [[String: Any]])
        for pin in pins {
            let location = pin["location"] as? String ?? ""
            let version = (pin["state"] as? [String: Any])?["version"] as? String
            #expect(pinned[Self.identity(location)] == version, "\(location) resolved to \(version ?? "none")")
        }
        #expect(Set(pins.map { Self.identity($0["location"] as? String ?? "") }) == Set(pinned.keys))
    }
}
