import Foundation
import TestSupport
import Testing
import TopicGateCore

@testable import TopicGateStore

/// Backups and the copy a restore keeps hold password hashes, emails and states: no one but
/// their owner reads them.
@Suite("SQLite backups")
struct SQLiteBackupTests {
    static func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test("A backup, the database a restore puts back and the copy it keeps of the one it replaces are 0600")
    func privateFiles() async throws {
        let folder = TestFolder.url.appendingPathComponent("tg-backup-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = folder + "/topicgate.sqlite"
        let store = try SQLiteStore(path: database)
        try await store.insertApp(
            App(id: "app1", key: "k", clientID: "c", clientSecretHash: "h", name: "app", createdAt: 1))
        // An umask that would leave them readable by everyone.
        let previous = umask(0o022)
        defer { umask(previous) }
        let backup = folder + "/backup.sqlite"
        let contents = try SQLiteBackup.backup(databaseAt: database, to: backup)
        #expect(contents.apps == 1)
        #expect(try Self.mode(backup) & 0o777 == 0o600)
        let target = folder + "/restored/topicgate.sqlite"
        try FileManager.default.createDirectory(atPath: folder + "/restored", withIntermediateDirectories: true)
        try SQLiteBackup.restore(backup, to: target)
        #expect(try Self.mode(target) & 0o777 == 0o600)
        // Restored again: the replaced database is kept, privately.
        try SQLiteBackup.restore(backup, to: target)
        #expect(try Self.mode(target + ".before-restore") & 0o777 == 0o600)
        #expect(try Self.mode(target) & 0o777 == 0o600)
    }
}
