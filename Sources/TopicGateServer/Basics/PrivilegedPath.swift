import Foundation
import ProcessSupport

/// What a gateway running as root refuses to trust: a file or folder another user could have
/// written. The broker's template becomes a configuration root's Mosquitto reads; the data
/// folder holds the database, the secret and the broker's folder; the secret signs every
/// device's password.
enum PrivilegedPath {
    /// Why root must not use `path` (nil when it may): it is writable by every user, owned by
    /// another user, or (for a file) in a folder every user may write without the sticky bit.
    static func refusal(_ path: String, what: String) -> String? {
        guard let info = FileStatus(path) else { return nil }
        if info.mode & S_IWOTH != 0 {
            return "The \(what) \(path) is writable by every user; as root the gateway will not use it. "
                + "Run `chmod o-w \(path)`, check what it holds, and start again."
        }
        if info.owner != 0 {
            return "The \(what) \(path) belongs to uid \(info.owner), not root; as root the gateway will not use "
                + "it. Run `chown root \(path)`, check what it holds, and start again."
        }
        let folder = (path as NSString).deletingLastPathComponent
        if !info.isDirectory, !folder.isEmpty, let parent = FileStatus(folder),
            parent.mode & S_IWOTH != 0, parent.mode & S_ISVTX == 0
        {
            return "The \(what) \(path) is in \(folder), which every user may write; as root the gateway will "
                + "not use it. Move it to a folder of root's, or run `chmod o-w \(folder)`."
        }
        return nil
    }
}
