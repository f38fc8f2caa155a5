import Foundation

/// What `stat(2)` (or `lstat(2)`, not following a final link) says of a path: its type and
/// permission bits, owner, group and number of links. The one reader of `struct stat`: in a
/// module that also imports Dispatch, which module the compiler sees `stat`'s members through
/// depends on the files compiled beside it.
public struct FileStatus: Sendable {
    /// Type and permission bits (`S_IFMT`, `S_IWOTH`, …).
    public let mode: mode_t
    public let owner: uid_t
    public let group: gid_t
    /// Hard links to it.
    public let links: UInt

    /// nil when `path` cannot be read (nothing there, or a folder on the way not searchable).
    public init?(_ path: String, followingLinks: Bool = true) {
        var info = stat()
        guard (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        mode = info.st_mode
        owner = info.st_uid
        group = info.st_gid
        links = UInt(info.st_nlink)
    }

    public var isDirectory: Bool { mode & S_IFMT == S_IFDIR }
    public var isRegularFile: Bool { mode & S_IFMT == S_IFREG }
}
