import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore

/// Changes that another process makes on a gateway's SQLite file take effect on the running
/// gateway within a fraction of a second, though its caches only hear its own commits at once:
/// `topicgate apps reset-secret` run beside it revokes the admin tokens and the old secret.
@Suite("Changes by another process on the same SQLite file")
struct ForeignChangeTests {
    @Test("apps reset-secret from the CLI: the old admin token and the old secret are refused by the running gateway")
    func resetSecretFromTheCLI() async throws {
        let world = try await PushWorld.started()
        let credentials = try world.server.adminCredentials()
        let oldToken = try await world.adminToken()
        // The gateway has the token (and the app) in its caches.
        try await world.call(.get, "\(world.app)/overview", token: oldToken).expect(.ok)
        try await world.call(.get, "\(world.app)/overview", token: oldToken).expect(.ok)

        let (status, output) = try await BackupRestoreTests.topicgate([
            "apps", "reset-secret", "--data-dir", world.directory, world.appID,
        ])
        #expect(status == 0, "\(output)")
        let reset = ContinuousClock.now
        let newSecret = try #require(
            output.split(separator: "\n").first { $0.hasPrefix("clientSecret:") }?.split(separator: " ").last.map(
                String.init))
        #expect(
            try await eventually(timeout: .seconds(3)) {
                try await world.call(.get, "\(world.app)/overview", token: oldToken).status != .ok
            })
        print(
            "ForeignChangeTests: the old admin token was refused \(ContinuousClock.now - reset) after the CLI returned")
        let refused = try await world.call(.get, "\(world.app)/overview", token: oldToken)
        #expect(refused.errorCode == "WRONG_TOKEN")
        let oldSecret = try await world.call(
            .post, "\(world.app)/oauth2/token",
            json: [
                "grant_type": "client_credentials", "client_id": .string(credentials.clientID),
                "client_secret": .string(credentials.clientSecret),
            ])
        #expect(oldSecret.status == .badRequest)
        try await world.call(
            .post, "\(world.app)/oauth2/token",
            json: [
                "grant_type": "client_credentials", "client_id": .string(credentials.clientID),
                "client_secret": .string(newSecret),
            ]
        ).expect(.ok)
        try await world.stop()
    }
}
