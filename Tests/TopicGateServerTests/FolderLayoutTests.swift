import Foundation
import Testing

/// The gateway's feature folders form layers: none uses a folder that uses it back, however
/// far round, and `Sources/README.md` draws the picture the code makes.
@Suite("Folder layout")
struct FolderLayoutTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")

    @Test("No feature folder of the gateway uses one that uses it back")
    func noCycles() throws {
        let dependencies = try FolderDependencies(sources: Self.sources.appendingPathComponent("TopicGateServer"))
        #expect(dependencies.uses.count >= 10)
        if let cycle = dependencies.cycle {
            let steps = zip(cycle, cycle.dropFirst()).map { from, to in
                "\(from) → \(to) (\((dependencies.uses[from]?[to] ?? []).sorted().joined(separator: ", ")))"
            }
            Issue.record("A cycle of folders: \(steps.joined(separator: "; "))")
        }
    }

    @Test("Sources/README.md shows the folders' dependencies as the code has them")
    func pictureIsTrue() throws {
        let dependencies = try FolderDependencies(sources: Self.sources.appendingPathComponent("TopicGateServer"))
        let readme = try String(contentsOf: Self.sources.appendingPathComponent("README.md"), encoding: .utf8)
        let shown = readme.split(separator: "\n").map(String.init).filter { $0.hasPrefix("- `") && $0.contains("/`") }
        #expect(
            shown == dependencies.picture,
            "\(["", dependencies.picture.joined(separator: "\n")].joined(separator: "\n"))")
    }
}
