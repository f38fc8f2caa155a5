import Foundation
import TopicGateStore

/// New SQLite store files for tests, already migrated: each is a copy of one file that this
/// process migrated once. Hundreds of tests each running every migration (in debug builds,
/// with a disk sync per migration) kept both cores of a CI machine busy for the first
/// minute of the suite. A store opened on a copy finds every migration applied, as a gateway
/// restarting on its own file does; first starts and upgrades from each earlier schema
/// have tests of their own that start from nothing.
public enum MigratedSQLite {
    /// Writes a migrated, empty database at `path` (which must not exist yet), creating its
    /// folder when needed.
    public static func place(at path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try template.get(), toPath: path)
    }

    /// The migrated file, as one consistent backup (no write-ahead log beside it).
    private static let template = Result<String, any Error> {
        let folder = TestFolder.url
            .appendingPathComponent("topicgate-migrated-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let source = folder + "/source.sqlite"
        _ = try SQLiteStore(path: source)
        let template = folder + "/template.sqlite"
        try SQLiteBackup.backup(databaseAt: source, to: template)
        return template
    }
}
