import Foundation

/// Where a test process keeps its files (databases, data folders, logs): a folder of its own
/// under the system's temporary folder, removed when the process exits. A run that was killed
/// cannot remove its own: the next test process removes the folders of test processes that no
/// longer run. Screenshots to look at are kept apart (`keepScreenshots`).
public enum TestFolder {
    private static let prefix = "topicgate-tests-"

    /// This process's folder (readable by all, so that a broker started as `mosquitto` reaches
    /// the folders its tests make inside).
    public static let url: URL = {
        let system = FileManager.default.temporaryDirectory
        removeAbandoned(in: system)
        let folder = system.appendingPathComponent("\(prefix)\(getpid())")
        try? FileManager.default.removeItem(at: folder)
        try? FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        atexit { try? FileManager.default.removeItem(at: TestFolder.url) }
        return folder
    }()

    /// Copies the PNG files in `folder` to `topicgate-screenshots/<name>` in the system's
    /// temporary folder (replacing what an earlier run left there), where they outlive the test
    /// process to be looked at; returns that folder.
    @discardableResult
    public static func keepScreenshots(from folder: String, as name: String) -> String {
        let kept = FileManager.default.temporaryDirectory.appendingPathComponent("topicgate-screenshots/\(name)")
        try? FileManager.default.removeItem(at: kept)
        try? FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
        for file in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where file.hasSuffix(".png") {
            try? FileManager.default.copyItem(
                atPath: folder + "/" + file, toPath: kept.appendingPathComponent(file).path)
        }
        return kept.path
    }

    /// Removes the folders of test processes that no longer run.
    private static func removeAbandoned(in system: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: system.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = pid_t(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            // Signal 0 checks that the process exists; ESRCH: it does not.
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(at: system.appendingPathComponent(name))
            }
        }
    }
}
