import Crypto
import Foundation
import ProcessSupport

/// The account the embedded broker runs as when the gateway runs as root (Debian's
/// `mosquitto`), and the folder of the files that account must read and write itself.
///
/// Mosquitto drops root before it loads its plugin, writes its pid file or its persistence, so
/// every one of those paths must be reachable by that account. A data folder under a private
/// parent (`/root/tg-data`, the first thing one tries on a fresh VM) is not: then the broker's
/// files live in `/var/lib/topicgate/broker-<hash of the data folder>` instead, a folder that
/// account owns, and the gateway says so at start. The generated configuration and the
/// broker's log stay in `<data-dir>/broker`, where the operator looks (both are read or
/// written by root: the configuration before the drop, the log through the descriptor the
/// gateway opens).
struct BrokerAccount: Sendable {
    let name: String
    let uid: uid_t
    let gid: gid_t
    /// Every group the account is in, its primary one included.
    let groups: Set<gid_t>

    /// Debian's `mosquitto` account, or nil when there is none.
    static func unprivileged(named name: String) -> BrokerAccount? {
        guard let entry = getpwnam(name) else { return nil }
        let uid = entry.pointee.pw_uid
        let gid = entry.pointee.pw_gid
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(name, gid, &groups, &count)
        }
        return BrokerAccount(
            name: name, uid: uid, gid: gid, groups: Set(groups.prefix(Int(max(count, 0)))).union([gid]))
    }

    /// True when this account may pass through every folder on the way to `path` (and `path`
    /// itself), by the owner, group and other bits of each.
    func canReach(_ path: String) -> Bool {
        var prefix = ""
        for component in ([""] + Self.absolute(path).split(separator: "/").map(String.init)) {
            prefix = component.isEmpty ? "/" : (prefix == "/" ? "/" : prefix + "/") + component
            // A folder not made yet is created by root with the parent's reach: stop here.
            guard let info = FileStatus(prefix) else { return true }
            let mode = info.mode
            let allowed =
                if info.owner == uid { mode & S_IXUSR != 0 } else if groups.contains(info.group) {
                    mode & S_IXGRP != 0
                } else { mode & S_IXOTH != 0 }
            if !allowed { return false }
        }
        return true
    }

    /// Where the broker's own files go for the broker folder `directory`: `directory` itself
    /// when this account can reach it, otherwise a folder of its own under `base`, named after
    /// `directory` so that each data folder keeps its own persistence.
    func filesDirectory(for directory: String, base: String = "/var/lib/topicgate") -> String {
        if canReach(directory) { return directory }
        let digest = SHA256.hash(data: Data(Self.absolute(directory).utf8))
        let name = digest.prefix(6).map { String(format: "%02x", $0) }.joined()
        return base + "/broker-" + name
    }

    static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: full).standardizedFileURL.path
    }
}
