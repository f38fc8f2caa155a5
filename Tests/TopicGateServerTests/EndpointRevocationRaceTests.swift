import Foundation
import Logging
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore
import TopicGateStore

@testable import TopicGateServer

/// The endpoint's side of a race with a revocation, made deterministic: the installation read
/// before the revocation, its credentials asked for after it. No credentials are signed
/// (docs/security.md: "An endpoint request that races with a revocation hands out no
/// credentials"), whatever the request read first.
@Suite("An endpoint racing a revocation")
struct EndpointRevocationRaceTests {
    @Test("Read before the revocation, asked after: INSTALLATION_NOT_FOUND, no password")
    func staleInstallation() async throws {
        let server = try await TestServer.make(push: true)
        defer { try? FileManager.default.removeItem(atPath: server.directory) }
        let environment = ServerEnvironment(
            configuration: server.configuration, store: server.store, time: .system, hasher: PasswordHasher(cost: 4),
            dispatcher: RecordingPushDispatcher(), link: DisconnectedDeviceLink(),
            signer: MQTTCredentialSigner(secret: String(repeating: "ab", count: 32)), logger: Logger(label: "test"),
            metrics: ServerMetrics())
        let user = User(id: UserID("racer"), appID: server.app.id, createdAt: 1, modifiedAt: 1)
        try await server.store.insertUser(user)
        try await server.store.insertInstallation(
            Installation(
                id: InstallationID("race-1"), appID: server.app.id, principal: .user(user.id), deviceType: "MQTT",
                registrationID: "race-1", mqttTopic: "race1topic", development: false, createdAt: UnixMillis(1),
                tokenHash: nil))
        let read = try #require(try await server.store.installation(appID: server.app.id, id: InstallationID("race-1")))
        // Before the revocation the same request signs credentials.
        #expect(try await environment.installations.endpoint(for: read).password.isEmpty == false)
        _ = try await server.store.revokeInstallations(
            appID: server.app.id, .one(InstallationID("race-1")), now: UnixMillis(2))
        let refusal = await #expect(throws: KiiError.self) {
            _ = try await environment.installations.endpoint(for: read)
        }
        #expect(refusal?.code == .installationNotFound)
    }
}
