import HTTPTypes
import TestSupport
import Testing
import TopicGateCore
import TopicGateServer

/// Kii's password rules on every path that sets a password, through the routes: users 4 to 50
/// printable ASCII characters, things 1 to 200 printable characters, and a deployment's longer
/// minimum for users.
@Suite("Password rules over HTTP")
struct PasswordRuleRoutesTests {
    @Test(
        "Users: Kii's 4-character passwords register, upgrade, change and log in; 3, 51 or non-ASCII characters are refused with Kii's errors"
    )
    func userPasswords() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let user = try await client.normalUser("four", password: "1234")
            _ = try await client.login("four", password: "1234")
            for (password, code) in [
                ("abc", "PASSWORD_TOO_SHORT"), (String(repeating: "x", count: 51), "PASSWORD_TOO_LONG"),
                ("pässword", "INVALID_INPUT_DATA"),
            ] {
                let refused = try await client.call(
                    .post, "\(client.app)/users", contentType: "application/vnd.kii.RegistrationRequest+json",
                    json: ["loginName": "refused", "password": .string(password)])
                #expect(refused.status == .badRequest)
                #expect(refused.errorCode == code, "\(password)")
            }
            let changed = try await client.call(
                .put, "\(client.app)/users/me/password", token: user.token,
                contentType: "application/vnd.kii.ChangePasswordRequest+json",
                json: ["oldPassword": "1234", "newPassword": "a b!"])
            #expect(changed.status == .noContent)
            _ = try await client.login("four", password: "a b!")
            let pseudo = try await client.pseudoUser()
            let upgraded = try await client.call(
                .post, "\(client.app)/users/me", token: pseudo.token,
                contentType: "application/vnd.kii.UserUpdateRequest+json",
                json: ["loginName": "upgraded", "password": "9876"])
            #expect(upgraded.status == .ok)
            _ = try await client.login("upgraded", password: "9876")
        }
    }

    @Test(
        "Things: a password reset to 7 characters, one of 1 and one of 200 (400 bytes, past bcrypt's 72) all work, and only the whole 200-character one logs in"
    )
    func thingPasswords() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let admin = try await client.adminToken()
            let lamp = try await client.thing("lamp-short", password: "x")
            _ = try await client.login("VENDOR_THING_ID:lamp-short", password: "x")
            let reset = try await client.call(
                .put, "\(client.app)/things/\(lamp.id)/password", token: admin,
                contentType: "application/vnd.kii.ChangeThingPasswordRequest+json", json: ["newPassword": "7chars!"])
            #expect(reset.status == .noContent)
            _ = try await client.login("VENDOR_THING_ID:lamp-short", password: "7chars!")

            let long = String(repeating: "é", count: 199) + "a"
            _ = try await client.thing("lamp-long", password: long)
            _ = try await client.login("VENDOR_THING_ID:lamp-long", password: long)
            // bcrypt alone would have read only the first 72 bytes: the same start must not do.
            let sameStart = try await client.call(
                .post, "\(client.app)/oauth2/token",
                json: ["username": "VENDOR_THING_ID:lamp-long", "password": .string(String(long.dropLast()) + "b")])
            #expect(sameStart.status == .badRequest)
            let tooLong = try await client.call(
                .post, "\(client.app)/things", contentType: "application/vnd.kii.ThingRegistrationRequest+json",
                json: ["_vendorThingID": "lamp-201", "_password": .string(String(repeating: "x", count: 201))])
            #expect(tooLong.errorCode == "PASSWORD_TOO_LONG")
            let empty = try await client.call(
                .post, "\(client.app)/things", contentType: "application/vnd.kii.ThingRegistrationRequest+json",
                json: ["_vendorThingID": "lamp-0", "_password": ""])
            #expect(empty.status == .badRequest)
        }
    }

    @Test(
        "A longer minimum for users (--min-password-length 10) holds on every user path, and leaves things' passwords alone"
    )
    func raisedMinimum() async throws {
        let server = try await TestServer.make { $0.minimumPasswordLength = 10 }
        try await server.run { client in
            let refused = try await client.call(
                .post, "\(client.app)/users", contentType: "application/vnd.kii.RegistrationRequest+json",
                json: ["loginName": "nine", "password": "123456789"])
            #expect(refused.errorCode == "PASSWORD_TOO_SHORT")
            #expect(refused.object["minimumLength"] == 10)
            let user = try await client.normalUser("ten", password: "1234567890")
            let change = try await client.call(
                .put, "\(client.app)/users/me/password", token: user.token,
                contentType: "application/vnd.kii.ChangePasswordRequest+json",
                json: ["oldPassword": "1234567890", "newPassword": "short1234"])
            #expect(change.errorCode == "PASSWORD_TOO_SHORT")
            let pseudo = try await client.pseudoUser()
            let upgrade = try await client.call(
                .post, "\(client.app)/users/me", token: pseudo.token,
                contentType: "application/vnd.kii.UserUpdateRequest+json",
                json: ["loginName": "upgrading", "password": "short1234"])
            #expect(upgrade.errorCode == "PASSWORD_TOO_SHORT")
            _ = try await client.thing("firmware-fleet", password: "7chars!")
            _ = try await client.login("VENDOR_THING_ID:firmware-fleet", password: "7chars!")
        }
    }
}
