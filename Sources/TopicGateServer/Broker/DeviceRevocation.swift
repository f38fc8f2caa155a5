import TopicGateCore
import TopicGateStore

/// Revokes installations: from this instant the outbox routes nothing to them (the store says
/// so before the request returns) and the broker kicks and refuses their credentials.
struct DeviceRevocation: Sendable {
    let store: any InstallationStore
    let link: any DeviceLink
    let time: TimeSource

    func revoke(appID: AppID, _ selection: InstallationSelection) async throws {
        let revoked = try await store.revokeInstallations(appID: appID, selection, now: time.now())
        await self.revoked(revoked)
    }

    /// Tells the brokers of installations the store has revoked already.
    func revoked(_ installations: [Installation]) async {
        if !installations.isEmpty { await link.revoke(installations) }
    }
}
