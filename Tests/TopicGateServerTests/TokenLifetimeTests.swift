import Foundation
import HTTPTypes
import Hummingbird
import TestSupport
import Testing
import TopicGateCore

@testable import TopicGateServer

/// Every token has a way to end: admin tokens (the client credentials the console signs in
/// with) live hours, not decades; any token can be revoked by its holder (RFC 7009), and the
/// admin ends a user's tokens. Users' and things' tokens keep Kii's lifetime.
@Suite("Token lifetimes and revocation")
struct TokenLifetimeTests {
    @Test("An admin token lives 8 hours by default, never longer than asked, and is refused after")
    func adminTokenExpires() async throws {
        let clock = ManualClock()
        let server = try await TestServer.make(clock: clock)
        try await server.run { client in
            let credentials = try await client.adminCredentials()
            let grant = try await client.call(
                .post, "\(client.app)/oauth2/token",
                json: [
                    "grant_type": "client_credentials", "client_id": .string(credentials.clientID),
                    "client_secret": .string(credentials.clientSecret),
                ]
            ).expect(.ok)
            #expect(grant.object["expires_in"]?.intValue == 28_800)
            let admin = try grant.require("access_token")
            // Asking for a year gets 8 hours; asking for a minute gets a minute.
            let year = try await client.call(
                .post, "\(client.app)/oauth2/token",
                json: [
                    "grant_type": "client_credentials", "client_id": .string(credentials.clientID),
                    "client_secret": .string(credentials.clientSecret),
                    "expiresAt": .int(clock.now + 365 * 86_400_000),
                ]
            ).expect(.ok)
            #expect(year.object["expires_in"]?.intValue == 28_800)
            // A user's token keeps Kii's lifetime: it does not expire.
            let user = try await client.pseudoUser()
            clock.advance(seconds: 8 * 3600 - 1)
            try await client.call(.get, "\(client.app)/overview", token: admin).expect(.ok)
            clock.advance(seconds: 2)
            let refused = try await client.call(.get, "\(client.app)/overview", token: admin)
            #expect(refused.errorCode == "WRONG_TOKEN")
            try await client.call(.get, "\(client.app)/users/me", token: user.token).expect(.ok)
        }
    }

    @Test("A holder revokes its own token (RFC 7009); another caller's revoke of it changes nothing")
    func revokeOwnToken() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let ann = try await client.normalUser("ann", password: "ann-password")
            let second = try await client.login("ann", password: "ann-password")
            let eve = try await client.pseudoUser()
            // Eve cannot end Ann's token: the answer is the same as for any token (200).
            try await client.call(
                .post, "\(client.app)/oauth2/revoke", token: eve.token,
                contentType: "application/x-www-form-urlencoded", body: "token=\(ann.token)"
            ).expect(.ok)
            try await client.call(.get, "\(client.app)/users/me", token: ann.token).expect(.ok)
            // Ann ends her first token (form body, as RFC 7009 has it); the second still works.
            try await client.call(
                .post, "\(client.app)/oauth2/revoke", token: ann.token,
                contentType: "application/x-www-form-urlencoded",
                body: "token=\(ann.token)&token_type_hint=access_token"
            ).expect(.ok)
            #expect(try await client.call(.get, "\(client.app)/users/me", token: ann.token).errorCode == "WRONG_TOKEN")
            try await client.call(.get, "\(client.app)/users/me", token: second).expect(.ok)
            // A JSON body works too; an unknown token is answered alike.
            try await client.call(
                .post, "\(client.app)/oauth2/revoke", token: second, json: ["token": "no-such-token"]
            ).expect(.ok)
            // No token named: invalid_request. No credentials at all: 401.
            #expect(
                try await client.call(.post, "\(client.app)/oauth2/revoke", token: second, json: [:]).status
                    == .badRequest)
            #expect(
                try await client.call(.post, "\(client.app)/oauth2/revoke", json: ["token": .string(second)]).status
                    == .unauthorized)
            try await client.call(.get, "\(client.app)/users/me", token: second).expect(.ok)
        }
    }

    @Test("The admin revokes any token, and every token of a user; nobody else may")
    func adminRevokes() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let admin = try await client.adminToken()
            let ann = try await client.normalUser("ann", password: "ann-password")
            let second = try await client.login("ann", password: "ann-password")
            let eve = try await client.pseudoUser()
            try await client.call(
                .post, "\(client.app)/oauth2/revoke", token: admin, json: ["token": .string(ann.token)]
            )
            .expect(.ok)
            #expect(try await client.call(.get, "\(client.app)/users/me", token: ann.token).errorCode == "WRONG_TOKEN")
            try await client.call(.get, "\(client.app)/users/me", token: second).expect(.ok)
            #expect(
                try await client.call(.delete, "\(client.app)/users/\(ann.id)/tokens", token: eve.token).status
                    == .forbidden)
            try await client.call(.get, "\(client.app)/users/me", token: second).expect(.ok)
            try await client.call(.delete, "\(client.app)/users/\(ann.id)/tokens", token: admin).expect(.noContent)
            #expect(try await client.call(.get, "\(client.app)/users/me", token: second).errorCode == "WRONG_TOKEN")
            // Ann signs in again with her password; Eve was never touched.
            _ = try await client.login("ann", password: "ann-password")
            try await client.call(.get, "\(client.app)/users/me", token: eve.token).expect(.ok)
            // The audit says who ended what.
            let audit = try await client.call(.get, "\(client.app)/security-audit", token: admin).expect(.ok).text
            #expect(audit.contains("TOKEN_REVOKED"))
        }
    }
}
