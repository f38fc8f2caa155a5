import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore

@Suite("Users over HTTP")
struct UserRoutesTests {
    @Test("A pseudo user is created with no credentials and its token is its identity")
    func pseudoUser() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let created = try await client.call(
                .post, "\(client.app)/users",
                contentType: "application/vnd.kii.RegistrationAndAuthorizationRequest+json",
                body: #"{"displayName":"Ann","score":3,"_hasPassword":true}"#)
            #expect(created.status == .created)
            #expect(created.object["_hasPassword"] == false)
            #expect(created.string("displayName") == "Ann")
            #expect(created.object["score"] == 3)
            #expect(created.errorCode == nil)
            #expect(created.headers[.location]?.hasSuffix("/users/\(created.string("userID")!)") == true)
            let token = try #require(created.string("_accessToken"))
            #expect(token.count == 43)

            let me = try await client.call(.get, "\(client.app)/users/me", token: token)
            #expect(me.status == .ok)
            #expect(me.string("userID") == created.string("userID"))
            #expect(me.object["_hasPassword"] == false)
        }
    }

    @Test("An empty body and a plain JSON content type also make a pseudo user")
    func pseudoUserQuirks() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let empty = try await client.call(.post, "\(client.app)/users", contentType: "application/json", body: "")
            #expect(empty.status == .created)
            #expect(empty.string("_accessToken") != nil)
            let lowercase = try await client.call(
                .post, "\(client.app)/users",
                contentType: "application/vnd.kii.registrationandauthorizationrequest+json; charset=utf-8", body: "{}")
            #expect(lowercase.status == .created)
        }
    }

    @Test("A pseudo user may not carry a login name without a password")
    func pseudoUserWithIdentityRefused() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let reply = try await client.call(
                .post, "\(client.app)/users",
                contentType: "application/vnd.kii.RegistrationAndAuthorizationRequest+json",
                body: #"{"loginName":"ann"}"#)
            #expect(reply.status == .badRequest)
            #expect(reply.errorCode == "INVALID_INPUT_DATA")
        }
    }

    @Test("The token scheme is case-insensitive, as the JS SDK sends 'bearer'")
    func lowercaseBearer() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let user = try await client.pseudoUser()
            let reply = try await client.call(
                .get, "\(client.app)/users/me", headers: [.authorization: "bearer \(user.token)"])
            #expect(reply.status == .ok)
        }
    }

    @Test("Missing, wrong and foreign-app tokens are refused with Kii's codes")
    func badTokens() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let none = try await client.call(.get, "\(client.app)/users/me")
            #expect(none.status == .unauthorized)
            #expect(none.errorCode == "UNAUTHORIZED")
            let wrong = try await client.call(.get, "\(client.app)/users/me", token: "not-a-token")
            #expect(wrong.status == .forbidden)
            #expect(wrong.errorCode == "WRONG_TOKEN")
            let garbage = try await client.call(.get, "\(client.app)/users/me", headers: [.authorization: "Digest x"])
            #expect(garbage.errorCode == "WRONG_TOKEN")
            let unknownApp = try await client.call(.get, "/api/apps/nosuchapp/users/me")
            #expect(unknownApp.status == .notFound)
            #expect(unknownApp.errorCode == "APP_NOT_FOUND")
        }
    }

    @Test("Normal registration, duplicates in any case, and weak passwords")
    func registration() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let registered = try await client.call(
                .post, "\(client.app)/users", contentType: "application/vnd.kii.RegistrationRequest+json",
                body:
                    #"{"loginName":"alice","emailAddress":"Alice@Example.com","password":"password123","country":"jp"}"#
            )
            #expect(registered.status == .created)
            #expect(registered.object["_hasPassword"] == true)
            #expect(registered.string("_accessToken") == nil)
            #expect(registered.string("emailAddress") == "alice@example.com")
            #expect(registered.string("country") == "JP")

            let duplicate = try await client.call(
                .post, "\(client.app)/users", contentType: "application/vnd.kii.RegistrationRequest+json",
                body: #"{"loginName":"ALICE","password":"password123"}"#)
            #expect(duplicate.status == .conflict)
            #expect(duplicate.errorCode == "USER_ALREADY_EXISTS")
            #expect(duplicate.string("field") == "loginName")

            let sameEmail = try await client.call(
                .post, "\(client.app)/users", contentType: "application/vnd.kii.RegistrationRequest+json",
                body: #"{"emailAddress":"alice@example.com","password":"password123"}"#)
            #expect(sameEmail.errorCode == "USER_ALREADY_EXISTS")

            let short = try await client.call(
                .post, "\(client.app)/users", contentType: "application/vnd.kii.RegistrationRequest+json",
                body: #"{"loginName":"bob","password":"abc"}"#)
            #expect(short.status == .badRequest)
            #expect(short.errorCode == "PASSWORD_TOO_SHORT")
            #expect(short.object["minimumLength"] == 4)

            let noPassword = try await client.call(
                .post, "\(client.app)/users", contentType: "application/vnd.kii.RegistrationRequest+json",
                body: #"{"loginName":"bob"}"#)
            #expect(noPassword.errorCode == "INVALID_INPUT_DATA")

            let badName = try await client.call(
                .post, "\(client.app)/users", contentType: "application/vnd.kii.RegistrationRequest+json",
                body: #"{"loginName":"b/b","password":"password123"}"#)
            #expect(badName.errorCode == "INVALID_INPUT_DATA")
        }
    }

    @Test("Malformed, mistyped and oversized bodies get clear 4xx errors")
    func badInput() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let users = "\(client.app)/users"
            let broken = try await client.call(.post, users, contentType: "application/json", body: #"{"a":"#)
            #expect(broken.status == .badRequest)
            #expect(broken.errorCode == "INVALID_JSON")
            let array = try await client.call(.post, users, contentType: "application/json", body: "[1,2]")
            #expect(array.errorCode == "INVALID_INPUT_DATA")
            let mistyped = try await client.call(
                .post, users, contentType: "application/json", body: #"{"displayName":7}"#)
            #expect(mistyped.errorCode == "INVALID_INPUT_DATA")
            #expect(mistyped.string("field") == "displayName")
            let huge = String(repeating: "x", count: 2 << 20)
            let oversized = try await client.call(
                .post, users, contentType: "application/json", json: ["displayName": .string(huge)])
            #expect(oversized.status == .contentTooLarge)
            #expect(oversized.errorCode == "REQUEST_ENTITY_TOO_LARGE")
            let unknownRoute = try await client.call(.get, "\(client.app)/nothing-here")
            #expect(unknownRoute.status == .notFound)
            #expect(unknownRoute.errorCode != nil)
            let badUserID = try await client.call(
                .get, "\(client.app)/users/a%20b", token: try await client.pseudoUser().token)
            #expect(badUserID.status == .notFound)
            #expect(badUserID.errorCode == "USER_NOT_FOUND")
        }
    }

    @Test("Upgrading a pseudo user (Unity: POST users/me with the whole user) enables password login")
    func upgradeUnityStyle() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let user = try await client.pseudoUser()
            let me = try await client.call(.get, "\(client.app)/users/me", token: user.token)
            var body = me.object
            body["loginName"] = "carol"
            body["password"] = "password123"
            body["displayName"] = "Carol"
            let upgraded = try await client.call(
                .post, "\(client.app)/users/me", token: user.token,
                contentType: "application/vnd.kii.UserUpdateRequest+json", body: JSONWriter.string(.object(body)))
            #expect(upgraded.status == .ok)
            #expect(upgraded.object["_hasPassword"] == true)
            #expect(upgraded.string("loginName") == "carol")
            #expect(upgraded.string("userID") == user.id)
            #expect(upgraded.object["modifiedAt"] != nil)

            let login = try await client.call(
                .post, "/api/oauth2/token", contentType: "application/vnd.kii.OauthTokenRequest+json",
                body: #"{"username":"carol","password":"password123"}"#,
                headers: [HTTPField.Name("X-Kii-AppID")!: server.app.id.rawValue])
            #expect(login.status == .ok)
            #expect(login.string("id") == user.id)
            #expect(login.string("token_type") == "Bearer")
            #expect(login.object["expires_in"] == .int(2_147_483_647))
            let newToken = try #require(login.string("access_token"))
            let again = try await client.call(.get, "\(client.app)/users/me", token: newToken)
            #expect(again.string("userID") == user.id)
            #expect(again.object["_hasPassword"] == true)

            // The old pseudo token still works: upgrading does not sign the device out.
            #expect(try await client.call(.get, "\(client.app)/users/me", token: user.token).status == .ok)

            // A second "upgrade" is refused: the user has a password now.
            let twice = try await client.call(
                .post, "\(client.app)/users/me", token: user.token, contentType: "application/json",
                body: #"{"loginName":"carol2","password":"password456"}"#)
            #expect(twice.status == .badRequest)
        }
    }

    @Test("Upgrading through POST users/{id} (JS SDK) with an email and phone; login by EMAIL: and PHONE:")
    func upgradeJSStyle() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let user = try await client.pseudoUser()
            let upgraded = try await client.call(
                .post, "\(client.app)/users/\(user.id)", token: user.token,
                contentType: "application/vnd.kii.UserUpdateRequest+json",
                body: #"{"emailAddress":"dan@example.com","phoneNumber":"+81 90-1234-5678","password":"password123"}"#)
            #expect(upgraded.status == .ok)
            #expect(upgraded.string("phoneNumber") == "+819012345678")
            for username in ["EMAIL:dan@example.com", "dan@example.com", "PHONE:+819012345678", "+819012345678"] {
                let login = try await client.call(
                    .post, "\(client.app)/oauth2/token", contentType: "application/json",
                    json: ["grant_type": "password", "username": .string(username), "password": "password123"])
                #expect(login.status == .ok, "login as \(username)")
                #expect(login.string("id") == user.id)
            }
        }
    }

    @Test("Upgrading needs an identity with the password, and identity needs a password")
    func upgradeRefusals() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let user = try await client.pseudoUser()
            let passwordOnly = try await client.call(
                .post, "\(client.app)/users/me", token: user.token, contentType: "application/json",
                body: #"{"password":"password123"}"#)
            #expect(passwordOnly.errorCode == "INVALID_INPUT_DATA")
            let identityOnly = try await client.call(
                .post, "\(client.app)/users/me", token: user.token, contentType: "application/json",
                body: #"{"loginName":"erin"}"#)
            #expect(identityOnly.errorCode == "INVALID_INPUT_DATA")
            let other = try await client.pseudoUser()
            let someoneElse = try await client.call(
                .post, "\(client.app)/users/\(user.id)", token: other.token, contentType: "application/json",
                body: #"{"displayName":"hijack"}"#)
            #expect(someoneElse.status == .forbidden)
            #expect(someoneElse.errorCode == "UNAUTHORIZED")
        }
    }

    @Test("A pseudo user can never obtain a token from the token endpoint")
    func pseudoUserCannotLogIn() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let user = try await client.pseudoUser()
            for password in ["", "password123", user.token] {
                let login = try await client.call(
                    .post, "\(client.app)/oauth2/token", contentType: "application/json",
                    json: ["username": .string(user.id), "password": .string(password)])
                #expect(login.status == .badRequest)
                #expect(login.string("access_token") == nil)
            }
        }
    }

    @Test("Login failures are 400 with error_description and do not tell unknown users from wrong passwords")
    func loginFailures() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            _ = try await client.normalUser("frank")
            let wrong = try await client.call(
                .post, "\(client.app)/oauth2/token", contentType: "application/json",
                body: #"{"username":"frank","password":"wrong-password"}"#)
            let unknown = try await client.call(
                .post, "\(client.app)/oauth2/token", contentType: "application/json",
                body: #"{"username":"nobody","password":"wrong-password"}"#)
            #expect(wrong.status == .badRequest)
            #expect(wrong.string("error_description") != nil)
            #expect(wrong.text == unknown.text)
            let missing = try await client.call(
                .post, "\(client.app)/oauth2/token", contentType: "application/json", body: #"{"username":"frank"}"#)
            #expect(missing.status == .badRequest)
            #expect(missing.string("error_description") != nil)
            let grant = try await client.call(
                .post, "\(client.app)/oauth2/token", contentType: "application/json", body: #"{"grant_type":"magic"}"#)
            #expect(grant.errorCode == "unsupported_grant_type")
            let noApp = try await client.call(
                .post, "/api/oauth2/token", contentType: "application/json",
                body: #"{"username":"frank","password":"x"}"#)
            #expect(noApp.errorCode == "APP_NOT_FOUND")
        }
    }

    @Test("A login may ask for an expiring token; it stops working at expiry")
    func expiringToken() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            _ = try await client.normalUser("gina")
            let past = try await client.call(
                .post, "\(client.app)/oauth2/token", contentType: "application/json",
                body: #"{"username":"gina","password":"password123","expiresAt":1000}"#)
            #expect(past.object["expires_in"] == 0)
            let token = try #require(past.string("access_token"))
            #expect(try await client.call(.get, "\(client.app)/users/me", token: token).errorCode == "WRONG_TOKEN")
        }
    }

    @Test("Admin and anonymous client credentials, also as Basic authorization")
    func clientCredentials() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let admin = try await client.adminToken()
            let user = try await client.pseudoUser()
            let read = try await client.call(.get, "\(client.app)/users/\(user.id)", token: admin)
            #expect(read.object["_hasPassword"] == false)
            let anonymous = try await client.call(
                .post, "\(client.app)/oauth2/token", contentType: "application/json",
                json: [
                    "grant_type": "client_credentials", "client_id": .string(server.app.id.rawValue),
                    "client_secret": "dummy",
                ])
            #expect(anonymous.status == .ok)
            let anonymousToken = try #require(anonymous.string("access_token"))
            #expect(
                try await client.call(.get, "\(client.app)/users/\(user.id)", token: anonymousToken).status
                    == .unauthorized)
            let wrongSecret = try await client.call(
                .post, "\(client.app)/oauth2/token", contentType: "application/json",
                json: [
                    "grant_type": "client_credentials", "client_id": .string(server.app.clientID),
                    "client_secret": "nope",
                ])
            #expect(wrongSecret.status == .badRequest)
            #expect(wrongSecret.string("access_token") == nil)
            let basic = "\(server.app.clientID):\(server.clientSecret)".data(using: .utf8)!.base64EncodedString()
            let viaBasic = try await client.call(
                .get, "\(client.app)/users/\(user.id)", headers: [.authorization: "Basic \(basic)"])
            #expect(viaBasic.status == .ok)
            #expect(viaBasic.object["_hasPassword"] == false)
        }
    }

    @Test("Other users see only the public fields; lookups by LOGIN_NAME: and EMAIL:")
    func readOtherUsers() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let hank = try await client.call(
                .post, "\(client.app)/users",
                contentType: "application/vnd.kii.RegistrationAndAuthorizationRequest+json",
                body:
                    #"{"loginName":"hank","emailAddress":"hank@example.com","password":"password123","secretNote":"x"}"#
            )
            let viewer = try await client.pseudoUser()
            let byName = try await client.call(.get, "\(client.app)/users/LOGIN_NAME:hank", token: viewer.token)
            #expect(byName.status == .ok)
            #expect(byName.string("userID") == hank.string("userID"))
            #expect(byName.object["emailAddress"] == nil)
            #expect(byName.object["secretNote"] == nil)
            let byEmail = try await client.call(.get, "\(client.app)/users/EMAIL:hank@example.com", token: viewer.token)
            #expect(byEmail.string("userID") == hank.string("userID"))
            let missing = try await client.call(.get, "\(client.app)/users/LOGIN_NAME:nobody", token: viewer.token)
            #expect(missing.status == .notFound)
            #expect(missing.errorCode == "USER_NOT_FOUND")
        }
    }

    @Test("Changing the password revokes the user's other tokens and keeps the one used")
    func changePassword() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let first = try await client.normalUser("ivan")
            let second = try #require(
                try await client.call(
                    .post, "\(client.app)/oauth2/token", contentType: "application/json",
                    body: #"{"username":"ivan","password":"password123"}"#
                ).string("access_token"))
            let wrongOld = try await client.call(
                .put, "\(client.app)/users/me/password", token: first.token,
                contentType: "application/vnd.kii.ChangePasswordRequest+json",
                body: #"{"oldPassword":"nope-nope","newPassword":"password456"}"#)
            #expect(wrongOld.status == .unauthorized)
            #expect(wrongOld.errorCode == "WRONG_PASSWORD")
            let changed = try await client.call(
                .put, "\(client.app)/users/me/password", token: first.token,
                contentType: "application/vnd.kii.ChangePasswordRequest+json",
                body: #"{"oldPassword":"password123","newPassword":"password456"}"#)
            #expect(changed.status == .noContent)
            #expect(try await client.call(.get, "\(client.app)/users/me", token: first.token).status == .ok)
            #expect(try await client.call(.get, "\(client.app)/users/me", token: second).errorCode == "WRONG_TOKEN")
            let oldLogin = try await client.call(
                .post, "\(client.app)/oauth2/token", contentType: "application/json",
                body: #"{"username":"ivan","password":"password123"}"#)
            #expect(oldLogin.status == .badRequest)
            let newLogin = try await client.call(
                .post, "\(client.app)/oauth2/token", contentType: "application/json",
                body: #"{"username":"ivan","password":"password456"}"#)
            #expect(newLogin.status == .ok)
            let pseudo = try await client.pseudoUser()
            let pseudoChange = try await client.call(
                .put, "\(client.app)/users/me/password", token: pseudo.token, contentType: "application/json",
                body: #"{"oldPassword":"","newPassword":"password456"}"#)
            #expect(pseudoChange.errorCode == "INVALID_ACCOUNT_STATUS")
        }
    }

    @Test("Deleting a user revokes its tokens at once; only the user or the admin may delete it")
    func deleteUser() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let user = try await client.pseudoUser()
            let other = try await client.pseudoUser()
            let refused = try await client.call(.delete, "\(client.app)/users/\(user.id)", token: other.token)
            #expect(refused.status == .forbidden)
            let deleted = try await client.call(.delete, "\(client.app)/users/\(user.id)", token: user.token)
            #expect(deleted.status == .noContent)
            #expect(try await client.call(.get, "\(client.app)/users/me", token: user.token).errorCode == "WRONG_TOKEN")
            let admin = try await client.adminToken()
            let gone = try await client.call(.delete, "\(client.app)/users/\(user.id)", token: admin)
            #expect(gone.status == .notFound)
            #expect(gone.errorCode == "USER_NOT_FOUND")
        }
    }

    @Test("No success body carries errorCode, and no body carries a raw '%'")
    func bodyQuirks() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let user = try await client.pseudoUser(["displayName": "100% sure", "note": "%zz"])
            let me = try await client.call(.get, "\(client.app)/users/me", token: user.token)
            #expect(!me.text.contains("%"))
            #expect(me.string("displayName") == "100% sure")
            #expect(me.errorCode == nil)
            #expect(me.headers[.contentType]?.contains("json") == true)
        }
    }
}
