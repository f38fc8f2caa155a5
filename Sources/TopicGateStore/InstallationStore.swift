public import TopicGateCore

/// Which installations a revocation takes.
public enum InstallationSelection: Sendable, Hashable {
    case one(InstallationID)
    /// Every installation of a user or thing.
    case principal(Principal)
    /// The installations a principal installed with tokens other than `keeping` (after those
    /// tokens were revoked). Installations the admin made are kept.
    case installedWithOtherTokens(Principal, keeping: String?)
    /// Every installation of a principal but those installed with the token `keeping`:
    /// also those the admin or onboarding made (a thing's password change).
    case allInstalledWithout(Principal, keeping: String?)
    /// The installations made with the token whose hash is given (after it was revoked).
    case installedWith(token: String)
}

/// Devices installed for push. Revoked installations are kept (not live) until their MQTT
/// credentials expire, so that the broker can be told again after a restart.
public protocol InstallationStore: Sendable {
    /// Inserts `installation`, unless the same device is installed already (a live installation
    /// with its principal, device type, registration ID, token and development flag: that one
    /// is returned) or `limit` is given and its principal holds that many live installations in
    /// the app already. The lookup, the count and the insert are one write.
    func insertInstallation(_ installation: Installation, limit: Int?) async throws -> InstallationInsertion
    /// Inserts `installation` and, when its principal holds `limit` live installations in the
    /// app already, revokes the oldest of them (at `now`) in the same write, so that it holds
    /// `limit` afterwards, the newest. Returns those it revoked.
    func insertInstallation(_ installation: Installation, replacingOldestAt limit: Int, now: UnixMillis)
        async throws -> [Installation]
    /// A live installation by ID.
    func installation(appID: AppID, id: InstallationID) async throws -> Installation?
    /// The newest live installation with this device type and registration ID, among those
    /// bound to `principal` (nil: anyone's). Nothing makes the pair unique, so that another
    /// principal's installation with the same registration ID never hides the caller's own.
    func installation(appID: AppID, deviceType: String, registrationID: String, boundTo principal: Principal?)
        async throws -> Installation?
    /// The live installation whose MQTT topic is `mqttTopic` (in any app).
    func liveInstallation(mqttTopic: String) async throws -> Installation?
    /// Records when devices were last seen connected, by MQTT username (an installation's MQTT
    /// topic); a time older than the one recorded is ignored.
    func recordLastSeen(_ seen: [String: UnixMillis]) async throws
    /// The app of each installation (live or not) among `mqttTopics`; unknown ones are left out.
    func installationApps(mqttTopics: [String]) async throws -> [String: AppID]
    /// The live installations of any of `principals`.
    func liveInstallations(appID: AppID, principals: [Principal]) async throws -> [Installation]
    /// Where pushes reach the devices of any of `principals`: their live `MQTT` installations,
    /// each principal's oldest first.
    func pushEndpoints(appID: AppID, principals: [Principal]) async throws -> [PushEndpoint]
    /// Records that credentials valid until `expiresAt` are being issued, only while
    /// the installation is live: false when it was revoked meanwhile (then no credentials may
    /// be handed out, since the broker was told to refuse only those it knew of).
    func recordCredentials(appID: AppID, id: InstallationID, expiresAt: UnixSeconds) async throws -> Bool
    /// Moves an installation to another broker (its endpoint names the new one from now on).
    func assignBroker(appID: AppID, id: InstallationID, broker: String) async throws
    /// How many live installations each broker serves (nil: those assigned none).
    func liveInstallationsByBroker() async throws -> [String?: Int]
    /// Revokes the selected live installations at `now`; returns those it revoked.
    func revokeInstallations(appID: AppID, _ selection: InstallationSelection, now: UnixMillis) async throws
        -> [Installation]
    /// The revoked installations of `principal` whose credentials have not expired at `now`
    /// (the broker still refuses them), most recently revoked first.
    func revokedInstallations(appID: AppID, principal: Principal, now: UnixSeconds) async throws -> [Installation]
    /// Revoked installations whose credentials have not expired at `now`, in every app.
    func outstandingRevocations(now: UnixSeconds) async throws -> [Installation]
    /// Forgets revoked installations whose credentials expired by `now`; returns how many.
    @discardableResult
    func purgeRevokedInstallations(now: UnixSeconds) async throws -> Int
}

extension InstallationStore {
    /// Inserts `installation`, counting against no quota.
    public func insertInstallation(_ installation: Installation) async throws {
        _ = try await insertInstallation(installation, limit: nil)
    }
}
