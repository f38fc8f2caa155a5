import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore
import TopicGateServer
import TopicGateStore

/// A user's profile update racing the admin's disable and a password change undoes neither, and
/// two password changes from the same old password do not both succeed.
@Suite("Users: racing writes")
struct UserRaceTests {
    @Test(
        "A user's profile update racing the admin's disable and password change: the user ends disabled, with the new password and, when the update was answered 200, its field"
    )
    func updateRacesDisableAndPassword() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let admin = try await client.adminToken()
            let user = try await client.normalUser("racing-ann")
            let path = "\(client.app)/users/\(user.id)"
            for round in 0..<10 {
                try await client.call(.put, "\(path)/status", token: admin, json: ["disabled": false])
                    .expect(.noContent)
                let before = try #require(try await server.store.user(appID: server.app.id, id: UserID(user.id)))
                let updated = try await withThrowingTaskGroup(of: Bool?.self) { group in
                    group.addTask {
                        // The user's own request: refused (403) when the disable came first.
                        let reply = try await client.call(
                            .post, "\(client.app)/users/me", token: user.token,
                            contentType: "application/vnd.kii.UserUpdateRequest+json",
                            json: ["displayName": .string("Ann \(round)"), "round": .int(Int64(round))])
                        return reply.status == .ok
                    }
                    group.addTask {
                        try await client.call(.put, "\(path)/status", token: admin, json: ["disabled": true])
                            .expect(.noContent)
                        return nil
                    }
                    group.addTask {
                        try await client.call(
                            .put, "\(path)/password", token: admin,
                            contentType: "application/vnd.kii.ChangePasswordRequest+json",
                            json: ["newPassword": .string("password-\(round)")]
                        ).expect(.noContent)
                        return nil
                    }
                    var updated = false
                    for try await answer in group { if let answer { updated = answer } }
                    return updated
                }
                let after = try #require(try await server.store.user(appID: server.app.id, id: UserID(user.id)))
                #expect(after.disabled, "round \(round)")
                #expect(after.passwordHash != before.passwordHash, "round \(round)")
                if updated {
                    #expect(after.profile.displayName == "Ann \(round)", "round \(round)")
                    #expect(after.profile.customFields["round"] == .int(Int64(round)), "round \(round)")
                }
            }
        }
    }

    @Test("Two password changes from the same old password: one succeeds, the other is told the old password is wrong")
    func passwordChangesFromOneOldPassword() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let user = try await client.normalUser("racing-bob", password: "old-password-1")
            let statuses = try await allAtOnce(2) { attempt in
                try await client.call(
                    .put, "\(client.app)/users/me/password", token: user.token,
                    contentType: "application/vnd.kii.ChangePasswordRequest+json",
                    json: ["oldPassword": "old-password-1", "newPassword": .string("new-password-\(attempt)")]
                ).status
            }
            #expect(statuses.filter { $0 == .noContent }.count == 1, "\(statuses)")
            #expect(statuses.filter { $0 == .badRequest || $0 == .forbidden || $0 == .unauthorized }.count == 1)
            // The password that stands is the one whose change succeeded: exactly one logs in.
            var logins = 0
            for attempt in 0..<2 {
                let reply = try await client.call(
                    .post, "\(client.app)/oauth2/token",
                    json: ["username": "racing-bob", "password": .string("new-password-\(attempt)")])
                if reply.status == .ok { logins += 1 }
            }
            #expect(logins == 1)
        }
    }
}
