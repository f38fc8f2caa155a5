import Synchronization
import TopicGateCore

/// Which devices are connected, to which broker, and when each was last seen, as the broker
/// plugins report them (`PresenceReport`). A snapshot (asked for whenever the gateway's link
/// to a broker comes up) replaces what was known of that broker, so a restart of the broker
/// or of the gateway is put right at once.
///
/// Kept in memory; `PresenceKeeper` writes the last-seen times to the installations every few
/// seconds (`takeUnsaved`) and looks up the app of each device that came online
/// (`takeUnresolved`, `resolve`), so that the online devices can be counted per app.
final class DevicePresence: Sendable {
    /// A device's presence: online now, or when it was last seen (nil: never, as far as known).
    struct Status: Sendable, Hashable {
        let online: Bool
        let lastSeen: UnixMillis?
    }

    /// An online device: its broker, and its app (an index into `apps`; -1 until looked up).
    private struct Online {
        let broker: String
        var app: Int32 = -1
    }

    private struct State {
        /// Online usernames.
        var online: [String: Online] = [:]
        /// When each username was last seen: connected, disconnected, or found in a snapshot.
        var lastSeen: [String: UnixMillis] = [:]
        /// Last-seen times not written yet.
        var unsaved: [String: UnixMillis] = [:]
        /// Online usernames whose app is to be looked up.
        var unresolved: [String] = []
        /// The apps of online devices, each once.
        var apps: [AppID] = []
        var appIndex: [AppID: Int32] = [:]
        /// Snapshots being received, by broker: the usernames so far and the parts seen.
        var snapshots: [String: (usernames: Set<String>, parts: Set<Int>)] = [:]

        mutating func seen(_ username: String, at time: UnixMillis) {
            lastSeen[username] = time
            unsaved[username] = time
        }

        /// A device that moved to another broker meanwhile stays online there.
        mutating func disconnected(_ username: String, broker: String) {
            if online[username]?.broker == broker { online[username] = nil }
        }

        mutating func connected(_ username: String, broker: String) {
            let app = online[username]?.app ?? -1
            online[username] = Online(broker: broker, app: app)
            if app < 0 { unresolved.append(username) }
        }
    }

    private let state = Mutex(State())

    func record(_ report: PresenceReport, broker: String, at time: UnixMillis) {
        state.withLock { state in
            switch report {
            case .connected(let username):
                state.connected(username, broker: broker)
                state.seen(username, at: time)
            case .disconnected(let username):
                state.disconnected(username, broker: broker)
                state.seen(username, at: time)
            case .changes(let changes):
                for change in changes {
                    if change.connected {
                        state.connected(change.username, broker: broker)
                    } else {
                        state.disconnected(change.username, broker: broker)
                    }
                    state.seen(change.username, at: time)
                }
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
                for (username, on) in state.online where on.broker == broker && !snapshot.usernames.contains(username) {
                    state.online[username] = nil
                    state.seen(username, at: time)
                }
                for username in snapshot.usernames {
                    state.connected(username, broker: broker)
                    state.seen(username, at: time)
                }
            }
        }
    }

    /// The presence of `installation`'s device: the last-seen time recorded with it when this
    /// gateway has seen nothing newer.
    func status(_ installation: Installation) -> Status {
        status(installation.mqttTopic, recorded: installation.lastSeenAt)
    }

    /// The presence of the device `username`; `recorded`: when it was last seen as written.
    func status(_ username: String, recorded: UnixMillis? = nil) -> Status {
        state.withLock { state in
            let seen = [state.lastSeen[username], recorded].compactMap { $0 }.max()
            return Status(online: state.online[username] != nil, lastSeen: seen)
        }
    }

    /// How many devices are online, on every broker of this gateway.
    var onlineCount: Int { state.withLock { $0.online.count } }

    /// How many devices of `appID` are online (those whose app was looked up).
    func onlineCount(appID: AppID) -> Int {
        state.withLock { state in
            guard let index = state.appIndex[appID] else { return 0 }
            return state.online.values.reduce(0) { $0 + ($1.app == index ? 1 : 0) }
        }
    }

    /// The last-seen times recorded since the last call, to be written.
    func takeUnsaved() -> [String: UnixMillis] {
        state.withLock { state in
            defer { state.unsaved = [:] }
            return state.unsaved
        }
    }

    /// Puts back times that could not be written (newer ones recorded meanwhile win).
    func restoreUnsaved(_ seen: [String: UnixMillis]) {
        state.withLock { state in state.unsaved.merge(seen) { max($0, $1) } }
    }

    /// Online usernames whose app is not known yet (at most `limit`).
    func takeUnresolved(limit: Int) -> [String] {
        state.withLock { state in
            let taken = Array(state.unresolved.suffix(limit))
            state.unresolved.removeLast(taken.count)
            return taken.filter { state.online[$0]?.app ?? 0 < 0 }
        }
    }

    /// Puts back usernames whose apps could not be looked up.
    func putBackUnresolved(_ usernames: [String]) {
        state.withLock { state in state.unresolved += usernames }
    }

    /// Records the apps of online devices (`takeUnresolved`); a username left out belongs to no
    /// installation and is not counted for any app.
    func resolve(_ apps: [String: AppID]) {
        state.withLock { state in
            for (username, appID) in apps where state.online[username] != nil {
                let index: Int32
                if let known = state.appIndex[appID] {
                    index = known
                } else {
                    index = Int32(state.apps.count)
                    state.apps.append(appID)
                    state.appIndex[appID] = index
                }
                state.online[username]?.app = index
            }
        }
    }
}
