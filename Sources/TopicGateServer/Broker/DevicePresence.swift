import Synchronization
import TopicGateCore

/// Which devices are connected, to which broker, and when each was last seen, as the broker
/// plugins report them (`PresenceReport`). A snapshot (asked for whenever the gateway's link
/// to a broker comes up) replaces what was known of that broker, so a restart of the broker
/// or of the gateway is put right at once.
///
/// Kept in memory, one entry per device (a report costs one lookup of its username). A
/// device's last-seen time is written to its installation when it goes offline
/// (`takeUnsaved`, by `PresenceKeeper` every few seconds): while it is online every gateway
/// linked to its broker knows it, so a connect writes nothing. `PresenceKeeper` also finds the
/// app of each device the first time it comes online (`takeUnresolved`, `resolve`), so that
/// the online devices can be counted per app.
final class DevicePresence: Sendable {
    /// A device's presence: online now, or when it was last seen (nil: never, as far as known).
    struct Status: Sendable, Hashable {
        let online: Bool
        let lastSeen: UnixMillis?
    }

    /// What is known of one device.
    private struct Device {
        /// When it was last seen: connected, disconnected, or found in a snapshot.
        var lastSeen: UnixMillis
        /// The broker it is connected to (an index into `brokers`); -1: not connected.
        var broker: Int32 = -1
        /// Its app (an index into `apps`); -1 until found. An installation's username never
        /// moves to another app, so a device that comes back keeps it.
        var app: Int32 = -1
        /// Its username waits in `unresolved`.
        var queued = false

        var online: Bool { broker >= 0 }

        /// Applies a report: whether the device was online before, is now, and whether its app
        /// is now to be found (it came online with none, and is not queued for it yet).
        mutating func change(connected: Bool, broker: Int32, at time: UnixMillis) -> (
            wasOnline: Bool, isOnline: Bool, toResolve: Bool
        ) {
            let wasOnline = online
            if connected {
                self.broker = broker
            } else if self.broker == broker {
                self.broker = -1
            }
            lastSeen = max(lastSeen, time)
            let toResolve = online && app < 0 && !queued
            if toResolve { queued = true }
            return (wasOnline, online, toResolve)
        }
    }

    /// Small numbers for the few brokers and apps, so that a device holds two integers.
    private struct Numbering<Key: Hashable> {
        private var numbers: [Key: Int32] = [:]

        func number(of key: Key) -> Int32? { numbers[key] }

        /// Its number, given now if it had none.
        mutating func assign(_ key: Key) -> Int32 {
            if let known = numbers[key] { return known }
            let number = Int32(numbers.count)
            numbers[key] = number
            return number
        }
    }

    private struct State {
        var devices: [String: Device] = [:]
        var online = 0
        /// Last-seen times of devices that went offline, not written yet.
        var unsaved: [String: UnixMillis] = [:]
        /// Online usernames whose app is to be found, each once.
        var unresolved: [String] = []
        var brokers = Numbering<String>()
        /// The apps of online devices.
        var apps = Numbering<AppID>()
        /// Snapshots being received, by broker: the usernames so far and the parts seen.
        var snapshots: [Int32: (usernames: Set<String>, parts: Set<Int>)] = [:]

        /// `username` came online at `broker` (`connected`) or left it, at `time`. A device that
        /// moved to another broker meanwhile stays online there.
        mutating func change(_ username: String, connected: Bool, broker: Int32, at time: UnixMillis) {
            // One lookup of the username: the entry is changed where it is.
            let (wasOnline, isOnline, toResolve) = devices[username, default: Device(lastSeen: time)].change(
                connected: connected, broker: broker, at: time)
            online += (isOnline ? 1 : 0) - (wasOnline ? 1 : 0)
            if !connected && !isOnline { unsaved[username] = time }
            if toResolve { unresolved.append(username) }
        }
    }

    private let state = Mutex(State())

    func record(_ report: PresenceReport, broker name: String, at time: UnixMillis) {
        state.withLock { state in
            let broker = state.brokers.assign(name)
            switch report {
            case .connected(let username):
                state.change(username, connected: true, broker: broker, at: time)
            case .disconnected(let username):
                state.change(username, connected: false, broker: broker, at: time)
            case .changes(let changes):
                for change in changes {
                    state.change(change.username, connected: change.connected, broker: broker, at: time)
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
                let gone = state.devices.compactMap { username, device in
                    device.broker == broker && !snapshot.usernames.contains(username) ? username : nil
                }
                for username in gone {
                    state.change(username, connected: false, broker: broker, at: time)
                }
                for username in snapshot.usernames {
                    state.change(username, connected: true, broker: broker, at: time)
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
            let device = state.devices[username]
            let seen = [device?.lastSeen, recorded].compactMap { $0 }.max()
            return Status(online: device?.online ?? false, lastSeen: seen)
        }
    }

    /// How many devices are online, on every broker of this gateway.
    var onlineCount: Int { state.withLock { $0.online } }

    /// How many devices of `appID` are online (those whose app was looked up).
    func onlineCount(appID: AppID) -> Int {
        state.withLock { state in
            guard let index = state.apps.number(of: appID) else { return 0 }
            return state.devices.values.reduce(0) { $0 + ($1.online && $1.app == index ? 1 : 0) }
        }
    }

    /// The last-seen times of the devices that went offline since the last call, to be written.
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

    /// Online usernames whose app is not known yet (at most `limit`); each is to be answered by
    /// `resolve` or put back.
    func takeUnresolved(limit: Int) -> [String] {
        state.withLock { state in
            let taken = Array(state.unresolved.suffix(limit))
            state.unresolved.removeLast(taken.count)
            return taken
        }
    }

    /// Puts back usernames whose apps could not be looked up.
    func putBackUnresolved(_ usernames: [String]) {
        state.withLock { state in state.unresolved += usernames }
    }

    /// Records the apps found for `asked` (taken by `takeUnresolved`); a username `apps` leaves
    /// out belongs to no installation, is not counted for any app, and is asked again when it
    /// comes online again.
    func resolve(_ asked: [String], apps: [String: AppID]) {
        answer(asked) { apps[$0] }
    }

    /// Records that every device taken by `takeUnresolved` belongs to `appID` (a store with one
    /// app: only its installations are given credentials the brokers accept).
    func resolveAll(_ asked: [String], to appID: AppID) {
        answer(asked) { _ in appID }
    }

    /// Each of `asked` is no longer waiting for its app; `app` names it where found.
    private func answer(_ asked: [String], app: (String) -> AppID?) {
        state.withLock { state in
            for username in asked {
                guard let index = state.devices.index(forKey: username) else { continue }
                state.devices.values[index].queued = false
                if let appID = app(username) { state.devices.values[index].app = state.apps.assign(appID) }
            }
        }
    }
}
