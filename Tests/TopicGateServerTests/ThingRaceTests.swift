import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore
import TopicGateServer
import TopicGateStore

/// An owner's update racing the admin's disable and a password change undoes neither.
@Suite("Things: racing writes")
struct ThingRaceTests {
    @Test(
        "An owner's field update racing a disable and a password change: the thing ends disabled, with the new password and the new field"
    )
    func updateRacesDisableAndPassword() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let admin = try await client.adminToken()
            let owner = try await client.pseudoUser()
            let thing = try await client.thing("racing-lamp", token: owner.token)
            try await client.call(.put, "\(client.app)/things/\(thing.id)/ownership/user:\(owner.id)", token: admin)
                .expect(.noContent)
            let path = "\(client.app)/things/\(thing.id)"
            for round in 0..<10 {
                try await client.call(.put, "\(path)/status", token: admin, json: ["disabled": false])
                    .expect(.noContent)
                let before = try #require(
                    try await server.store.thing(appID: server.app.id, reference: .id(ThingID(thing.id))))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        try await client.call(
                            .patch, path, token: owner.token,
                            contentType: "application/vnd.kii.ThingUpdateRequest+json",
                            json: ["_vendor": .string("round-\(round)")]
                        ).expect(.ok)
                    }
                    group.addTask {
                        try await client.call(.put, "\(path)/status", token: admin, json: ["disabled": true])
                            .expect(.noContent)
                    }
                    group.addTask {
                        try await client.call(
                            .put, "\(path)/password", token: owner.token,
                            contentType: "application/vnd.kii.ChangeThingPasswordRequest+json",
                            json: ["newPassword": .string("password-\(round)")]
                        ).expect(.noContent)
                    }
                    try await group.waitForAll()
                }
                let after = try #require(
                    try await server.store.thing(appID: server.app.id, reference: .id(ThingID(thing.id))))
                #expect(after.disabled, "round \(round)")
                #expect(after.passwordHash != before.passwordHash, "round \(round)")
                #expect(after.fields.values["_vendor"] == .string("round-\(round)"), "round \(round)")
            }
        }
    }
}
