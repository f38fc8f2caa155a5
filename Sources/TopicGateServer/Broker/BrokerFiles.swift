import Foundation
import ProcessSupport

/// The embedded broker's files on disk, and who may write each.
///
/// When the gateway runs as root, Mosquitto starts as root (it reads its configuration and
/// binds its listeners) and then drops to its own account. Everything root reads or writes
/// must therefore be out of that account's reach, or a compromised broker could write
/// `user root` into the next start's configuration, or point the log root appends to at a file
/// of its choice:
///
/// - `directory` (`<data-dir>/broker`): the generated configuration and the log; root's.
/// - `filesDirectory`: the copies the broker reads after the drop (the secret, TLS files, the
///   plugin when its own folder is out of reach), root's with the account's group, 0640.
///   `directory` itself, unless the account cannot reach it (a data folder under `/root`).
/// - `stateDirectory` (`<filesDirectory>/state`): the only folder the account owns: its
///   persistence, pid file and revocation file.
///
/// Nothing is ever changed through a symbolic link: folders are opened with `O_NOFOLLOW`
/// before their owner changes, files are written to a new name and renamed into place, and a
/// log that is not a plain file of root's is removed before the broker appends to it.
/// Without root (or without the account), the broker runs as the gateway's own user and the
/// same folders are simply created.
struct BrokerFiles: Sendable {
    let directory: String
    let filesDirectory: String
    /// The account the broker drops to; nil when it runs as the gateway's own user.
    let account: BrokerAccount?

    var stateDirectory: String { filesDirectory + "/state" }
    var configPath: String { directory + "/mosquitto.conf" }
    var logPath: String { directory + "/mosquitto.log" }
    var pidPath: String { stateDirectory + "/mosquitto.pid" }
    /// Where a broker set up before the state folder existed kept its pid file.
    var legacyPidPath: String { filesDirectory + "/mosquitto.pid" }

    /// Creates the folders with their owners and modes, moves the persistence and revocations
    /// of an older layout into the state folder, and removes a log that root must not append to.
    func prepareFolders() throws {
        guard let account else {
            try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
            moveLegacyState()
            return
        }
        if filesDirectory != directory {
            // `/var/lib/topicgate`: root's and readable by all; only the broker's folder is private.
            try FileManager.default.createDirectory(
                atPath: (filesDirectory as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o755])
            try Self.ownedFolder(directory, owner: 0, group: 0, mode: 0o700)
        }
        try Self.ownedFolder(filesDirectory, owner: 0, group: account.gid, mode: 0o750)
        if let info = FileStatus(stateDirectory, followingLinks: false), !info.isDirectory {
            // Planted in the days the broker owned the folder: a link, a file. Not followed.
            unlink(stateDirectory)
        }
        try Self.ownedFolder(stateDirectory, owner: account.uid, group: account.gid, mode: 0o700)
        moveLegacyState()
        if let info = FileStatus(logPath, followingLinks: false),
            !info.isRegularFile || info.owner != 0 || info.links != 1
        {
            unlink(logPath)
        }
    }

    /// Writes `contents` to `path` in one of the folders above: a new file (never through a
    /// link) renamed into place; owned by root and the account's group when there is an
    /// account, with `mode`.
    func write(_ contents: Data, to path: String, mode: mode_t) throws {
        let temporary = path + ".new"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw EmbeddedBrokerError("Cannot write \(temporary) (errno \(errno)).") }
        var written = 0
        let failed = contents.withUnsafeBytes { bytes -> Bool in
            while written < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if count < 0 { return errno != EINTR }
                written += count
            }
            return false
        }
        let owned = account.map { fchown(descriptor, 0, $0.gid) == 0 } ?? true
        let moded = fchmod(descriptor, mode) == 0
        close(descriptor)
        guard !failed, owned, moded, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw EmbeddedBrokerError("Cannot write \(path) (errno \(errno)).")
        }
    }

    /// A copy of `path` named `name` in the files folder, readable by the broker's account and
    /// written by root only.
    func copyForBroker(_ path: String, as name: String) throws -> String {
        let target = filesDirectory + "/" + name
        try write(try Data(contentsOf: URL(fileURLWithPath: path)), to: target, mode: account == nil ? 0o600 : 0o640)
        return target
    }

    /// The persistence and revocation file of a broker set up before the state folder existed,
    /// moved into it (a rename, which follows no link); its stale pid file is left for
    /// `EmbeddedBroker.stopStaleBroker` and removed after.
    private func moveLegacyState() {
        for name in ["mosquitto.db", "revocations"]
        where FileStatus(filesDirectory + "/" + name, followingLinks: false) != nil
            && FileStatus(stateDirectory + "/" + name, followingLinks: false) == nil
        {
            rename(filesDirectory + "/" + name, stateDirectory + "/" + name)
        }
    }

    /// Creates `path` (one level) or takes the one there, if it is a real folder and not a
    /// link, and gives it `owner`, `group` and `mode` through its own descriptor.
    private static func ownedFolder(_ path: String, owner: uid_t, group: gid_t, mode: mode_t) throws {
        if mkdir(path, mode) != 0, errno != EEXIST {
            throw EmbeddedBrokerError("Cannot create the broker's folder \(path) (errno \(errno)).")
        }
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw EmbeddedBrokerError(
                "\(path) is not a folder (a symbolic link, or a file); remove it and start again (errno \(errno)).")
        }
        defer { close(descriptor) }
        guard fchown(descriptor, owner, group) == 0, fchmod(descriptor, mode) == 0 else {
            throw EmbeddedBrokerError("Cannot give \(path) to uid \(owner), gid \(group) (errno \(errno)).")
        }
    }
}
