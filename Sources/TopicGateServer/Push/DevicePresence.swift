import Synchronization
import TopicGateCore

/// Which devices are connected, to which broker, and when each was last seen, as the broker
/// plugins report them (`PresenceReport`). A snapshot (asked for whenever the gateway's link
/// to a broker comes up) replaces what was known of that broker, so a restart of the broker
/// or of the gateway is put right at once. Kept in memory: last-seen times start over when
/// the gateway does.
final class DevicePresence: Sendable {
    /// A device's presence: online now, or when it was last seen (nil: not since this gateway
    /// started).
    struct Status: Sendable, Hashable {
        let online: Bool
        let lastSeen: UnixMillis?
    }

    private struct State {
        /// Online usernames and the broker each is on.
        var online: [String: String] = [:]
        /// When each username was last seen: connected, disconnected, or found in a snapshot.
        var lastSeen: [String: UnixMillis] = [:]
        /// Snapshots being received, by broker: the usernames so far and the parts seen.
        var snapshots: [String: (usernames: Set<String>, parts: Set<Int>)] = [:]
    }

    private let state = Mutex(State())

    func record(_ report: PresenceReport, broker: String, at time: UnixMillis) {
        state.withLock { state in
            switch report {
            case .connected(let username):
                state.online[username] = broker
                state.lastSeen[username] = time
            case .disconnected(let username):
                // A device that moved to another broker meanwhile stays online there.
                if state.online[username] == broker { state.online[username] = nil }
                state.lastSeen[username] = time
            case .snapshot(let usernames, let part, let parts):
                var snapshot = state.snapshots[broker] ?? ([], [])
                if part == 1 { snapshot = ([], []) }
                snapshot.usernames.formUnion(usernames)
                snapshot.parts.insert(part)
                guard snapshot.parts.count == parts else {
                    state.snapshots[broker] = snapshot
                    return
                }
                state.snapshots[broker] = nil
                for (username, on) in state.online where on == broker && !snapshot.usernames.contains(username) {
                    state.online[username] = nil
                    state.lastSeen[username] = time
                }
                for username in snapshot.usernames {
                    state.online[username] = broker
                    state.lastSeen[username] = time
                }
            }
        }
    }

    func status(_ username: String) -> Status {
        state.withLock { Status(online: $0.online[username] != nil, lastSeen: $0.lastSeen[username]) }
    }

    /// How many devices are online, on every broker of this gateway.
    var onlineCount: Int { state.withLock { $0.online.count } }
}
