import Logging
import ServiceLifecycle
import TopicGateCore
import TopicGateStore

/// Keeps what `DevicePresence` learns: every `interval` it writes the last-seen times of the
/// devices that went offline to their installations (so that they outlive the gateway) and
/// finds the app of each device that came online (so that the overview counts an app's
/// devices). Writes once more when the gateway stops.
struct PresenceKeeper: Service {
    let presence: DevicePresence
    let store: any InstallationStore & AppStore
    let logger: Logger
    var interval: Duration = .seconds(2)

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            await keep()
        }
    }

    /// Writes the unsaved last-seen times and finds the apps of new online devices.
    func keep() async {
        let seen = presence.takeUnsaved()
        do {
            if !seen.isEmpty { try await store.recordLastSeen(seen) }
        } catch {
            presence.restoreUnsaved(seen)
            logger.warning("Cannot record when devices were last seen", metadata: ["error": "\(error)"])
        }
        var usernames = presence.takeUnresolved(limit: 500)
        guard !usernames.isEmpty else { return }
        do {
            // With one app every device is its own: the brokers accept only credentials given to
            // installations. Otherwise each device's installation says.
            let apps = try await store.apps()
            let onlyApp = apps.count == 1 ? apps[0].id : nil
            while !usernames.isEmpty {
                if let onlyApp {
                    presence.resolveAll(usernames, to: onlyApp)
                } else {
                    presence.resolve(usernames, apps: try await store.installationApps(mqttTopics: usernames))
                }
                usernames = presence.takeUnresolved(limit: 500)
            }
        } catch {
            presence.putBackUnresolved(usernames)
            logger.warning("Cannot look up the apps of online devices", metadata: ["error": "\(error)"])
        }
    }
}
