import Foundation

/// The data folder and its files are the gateway's alone: the folder 0700 (0711 when a
/// broker running as another user must reach its own folder inside), the database, its
/// journal files and the MQTT secret 0600. `topicgate serve` also sets a 077 umask, so that
/// nothing it creates later is readable by others.
public enum DataDirectory {
    /// A data folder root must not use (see `PrivilegedPath`).
    public struct Refused: Error, CustomStringConvertible {
        public let description: String
    }

    /// Creates `path` if needed and takes group and other access away from it.
    /// - Parameter traversable: let other users pass through (not list) the folder, for a
    ///   broker child that runs as its own user in a subfolder.
    public static func prepare(_ path: String, traversable: Bool = false) throws {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // A folder already made traversable for the broker stays so (a CLI command opening the
        // store beside a running gateway must not lock the broker out of its folder).
        let current =
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? 0
        let mode = traversable || current & 0o777 == 0o711 ? 0o711 : 0o700
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    /// Takes group and other access away from `path` and its SQLite journal files, where they exist.
    public static func restrictFile(_ path: String) throws {
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        }
    }

    /// The permission bits of `path` that give group or others any access (0 when none).
    public static func looseBits(_ path: String) throws -> Int {
        let mode =
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? 0
        return mode & 0o077
    }
}
