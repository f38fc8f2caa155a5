import Foundation
import GRDB

/// Backups of the SQLite store through SQLite's online backup API: the copy is one consistent
/// snapshot (a single read transaction over every page), taken while the gateway goes on
/// writing, which a copy of the file and its write-ahead log is not.
public enum SQLiteBackup {
    /// Why a backup or a restore was refused.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// What a database file holds, as far as a restore cares.
    public struct Contents: Sendable, Equatable {
        /// The schema migrations it has, oldest first.
        public let migrations: [String]
        /// The number of apps and users in it, to say what was restored.
        public let apps: Int
        public let users: Int
        /// True when every migration of this version is applied (an older file is migrated on
        /// the gateway's next start).
        public let isCurrent: Bool
    }

    /// Copies the database at `databasePath` to `file` (replaced only when the copy is whole)
    /// and checks the copy; returns what it holds.
    @discardableResult
    public static func backup(databaseAt databasePath: String, to file: String) throws -> Contents {
        guard FileManager.default.fileExists(atPath: databasePath) else {
            throw Failure("There is no database at \(databasePath).")
        }
        // Not read-only: a read-only connection cannot open a write-ahead log that no gateway has open.
        let source = try DatabaseQueue(path: databasePath, configuration: waiting)
        let partial = file + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        do {
            let copy = try DatabaseQueue(path: try privateFile(partial))
            try source.backup(to: copy)
            // A backup is one file: no write-ahead log beside it.
            try copy.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = DELETE") }
            try copy.close()
            let contents = try inspect(partial)
            if FileManager.default.fileExists(atPath: file) { try FileManager.default.removeItem(atPath: file) }
            try FileManager.default.moveItem(atPath: partial, toPath: file)
            return contents
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
    }

    /// What `file` holds; refuses a file that is not a whole TopicGate database, or one made by
    /// a newer TopicGate (a migration this version does not know).
    public static func inspect(_ file: String) throws -> Contents {
        guard FileManager.default.isReadableFile(atPath: file) else { throw Failure("Cannot read \(file).") }
        let known = SQLiteSchema.migrator.migrations
        do {
            let database = try openReadOnly(file)
            return try database.read { db in
                guard try String.fetchOne(db, sql: "PRAGMA quick_check") == "ok" else {
                    throw Failure("\(file) is damaged (SQLite's quick_check fails).")
                }
                guard try db.tableExists("grdb_migrations"), try db.tableExists("apps") else {
                    throw Failure("\(file) is an SQLite file but not a TopicGate database.")
                }
                let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
                let unknown = applied.filter { !known.contains($0) }
                guard unknown.isEmpty else {
                    throw Failure(
                        "\(file) is from a newer TopicGate (schema \(unknown.joined(separator: ", ")), which this "
                            + "version does not know); restore it with that version or a newer one.")
                }
                let users =
                    try db.tableExists("users") ? try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM users") ?? 0 : 0
                return Contents(
                    migrations: known.filter(applied.contains),
                    apps: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM apps") ?? 0, users: users,
                    isCurrent: Set(applied) == Set(known))
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw Failure("\(file) is not a TopicGate database (not an SQLite file).")
        } catch let error as DatabaseError {
            throw Failure("Cannot read \(file) as a TopicGate database: \(error.message ?? "\(error)").")
        }
    }

    /// Puts the backup `file` in place of the database at `databasePath`, which no gateway may
    /// have open. The database it replaces, if any, is kept beside it as
    /// `<name>.before-restore` (with its write-ahead log folded in) until the next restore.
    @discardableResult
    public static func restore(_ file: String, to databasePath: String) throws -> Contents {
        let contents = try inspect(file)
        let manager = FileManager.default
        let previous = databasePath + ".before-restore"
        if manager.fileExists(atPath: databasePath) {
            // Through the backup API as well: the old file's log is folded into its copy.
            try? manager.removeItem(atPath: previous)
            try backup(databaseAt: databasePath, to: previous)
            for path in [databasePath, databasePath + "-wal", databasePath + "-shm"]
            where manager.fileExists(
                atPath: path)
            {
                try manager.removeItem(atPath: path)
            }
        }
        let partial = databasePath + ".restoring"
        try? manager.removeItem(atPath: partial)
        let source = try openReadOnly(file)
        let target = try DatabaseQueue(path: try privateFile(partial))
        try source.backup(to: target)
        try target.write { db in
            // No gateway serves the folder now: whatever one had claimed in the outbox when the
            // backup was taken is free to deliver at once, by whichever gateway starts next.
            if try db.columns(in: "outbox").contains(where: { $0.name == "claimed_by" }) {
                try db.execute(sql: "UPDATE outbox SET claimed_by = NULL, lease_until = 0")
            }
        }
        try target.close()
        try manager.moveItem(atPath: partial, toPath: databasePath)
        return contents
    }

    /// `path`, made empty and readable by its owner alone (0600): SQLite then writes the database
    /// into it, and its journal with the same mode. A backup holds password hashes, emails,
    /// phone numbers, payloads and states.
    static func privateFile(_ path: String) throws -> String {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        else { throw Failure("Cannot create \(path).") }
        // Whatever the process's umask did to the mode it was created with.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return path
    }

    private static func openReadOnly(_ path: String) throws -> DatabaseQueue {
        var configuration = waiting
        configuration.readonly = true
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// A connection that waits for the gateway's writes rather than failing at once.
    private static var waiting: Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        return configuration
    }
}
