import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore
import TopicGateServer
import TopicGateStore

/// Account links over HTTP: the migration of a pseudo user to a second device, every refusal,
/// the lockout, the audit trail.
@Suite("Account links over HTTP")
struct LinkRoutesTests {
    static let externalID = "_4a7b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3"  // an iCloud record name: 33 characters
    static let secret = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    static let otherSecret = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"

    static func linkBody(
        _ externalID: String = externalID, secret: String = secret, extra: [String: JSONValue] = [:]
    ) -> String {
        let fields: [String: JSONValue] = [
            "provider": "icloud", "externalID": .string(externalID), "secret": .string(secret),
        ]
        return JSONWriter.string(.object(fields.merging(extra) { $1 }))
    }

    @Test("Device A links its pseudo user; device B gets the same user back with a fresh token")
    func migration() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            // Device A: a pseudo user, linked. Linking again is harmless.
            let deviceA = try await client.pseudoUser()
            let linked = try await client.call(
                .post, "\(client.app)/users/me/links", token: deviceA.token, contentType: "application/json",
                body: Self.linkBody())
            #expect(linked.status == .created)
            #expect(linked.string("userID") == deviceA.id)
            #expect(
                linked.headers[.location]?.hasSuffix("/users/\(deviceA.id)/links/icloud/\(Self.externalID)") == true)
            #expect(!linked.text.contains(Self.secret) && !linked.text.contains(Secrets.sha256(Self.secret)))
            let again = try await client.call(
                .post, "\(client.app)/users/me/links", token: deviceA.token, contentType: "application/json",
                body: Self.linkBody())
            #expect(again.status == .ok)

            // The secret is kept only as its hash.
            let stored = try #require(
                try await server.store.link(
                    appID: server.app.id, provider: "icloud", externalID: Self.externalID, userID: UserID(deviceA.id)))
            #expect(stored.secretHash == Secrets.sha256(Self.secret))

            // Device B: no token, only the pair.
            let login = try await client.call(
                .post, "\(client.app)/links/login", contentType: "application/json", body: Self.linkBody())
            #expect(login.status == .ok)
            #expect(login.string("id") == deviceA.id)
            #expect(login.string("token_type") == "Bearer")
            let tokenB = try #require(login.string("access_token"))
            #expect(tokenB != deviceA.token)
            let me = try await client.call(.get, "\(client.app)/users/me", token: tokenB)
            #expect(me.string("userID") == deviceA.id)
            #expect(me.object["_hasPassword"] == false)
            // Device A's token still works: the person may use both.
            #expect(try await client.call(.get, "\(client.app)/users/me", token: deviceA.token).status == .ok)
            // The token endpoint still never gives a pseudo user a token.
            let viaTokenEndpoint = try await client.call(
                .post, "\(client.app)/oauth2/token", contentType: "application/json",
                json: ["username": .string(deviceA.id), "password": ""])
            #expect(viaTokenEndpoint.status == .badRequest)

            let listed = try await client.call(.get, "\(client.app)/users/me/links", token: tokenB)
            let links = listed.object["links"]?.arrayValue ?? []
            #expect(links.count == 1)
            #expect(links.first?.objectValue?["externalID"]?.stringValue == Self.externalID)
            #expect(links.first?.objectValue?["lastLoginAt"]?.intValue != nil)
            #expect(!listed.text.contains("secret\""))
        }
    }

    @Test("Refusals: weak or missing secrets, bad names, no token, the admin, another user's pair, a different secret")
    func refusals() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let ann = try await client.pseudoUser()
            let bob = try await client.pseudoUser()
            func link(_ token: String?, _ body: String, path: String = "me") async throws -> TestServer.Reply {
                try await client.call(
                    .post, "\(client.app)/users/\(path)/links", token: token, contentType: "application/json",
                    body: body)
            }
            for weak in ["0123456789abcdef", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "c2VjcmV0", "short secret"] {
                let reply = try await link(ann.token, Self.linkBody(secret: weak))
                #expect(reply.status == .badRequest, "\(weak)")
                #expect(reply.errorCode == "INVALID_INPUT_DATA")
                #expect(reply.string("field") == "secret")
            }
            #expect(try await link(ann.token, #"{"provider":"icloud","externalID":"x"}"#).string("field") == "secret")
            #expect(
                try await link(ann.token, Self.linkBody().replacingOccurrences(of: "icloud", with: "i cloud")).string(
                    "field") == "provider")
            #expect(
                try await link(ann.token, Self.linkBody(String(repeating: "x", count: 256))).string("field")
                    == "externalID")
            #expect(
                try await link(
                    ann.token,
                    JSONWriter.string(["provider": "icloud", "externalID": 7, "secret": .string(Self.secret)])
                ).status == .badRequest)
            #expect(try await link(ann.token, "not json").status == .badRequest)
            // Only a user links itself.
            #expect(try await link(nil, Self.linkBody()).status == .unauthorized)
            let admin = try await client.adminToken()
            #expect(try await link(admin, Self.linkBody(), path: ann.id).status == .forbidden)
            #expect(try await link(bob.token, Self.linkBody(), path: ann.id).status == .forbidden)

            #expect(try await link(ann.token, Self.linkBody()).status == .created)
            // Another user presenting Ann's pair and secret: refused, and not told whose it is.
            let taken = try await link(bob.token, Self.linkBody())
            #expect(taken.status == .conflict)
            #expect(taken.errorCode == "LINK_ALREADY_EXISTS")
            #expect(!taken.text.contains(ann.id))
            // Ann with a different secret: only as a rotation with the old secret.
            let different = try await link(ann.token, Self.linkBody(secret: Self.otherSecret))
            #expect(different.status == .conflict)
            #expect(different.errorCode == "LINK_SECRET_MISMATCH")
            #expect(
                try await link(ann.token, Self.linkBody(secret: Self.otherSecret, extra: ["rotate": true])).status
                    == .badRequest)
            let wrongOld = try await link(
                ann.token,
                Self.linkBody(
                    secret: Self.otherSecret, extra: ["rotate": true, "oldSecret": .string(Self.otherSecret)]))
            #expect(wrongOld.errorCode == "LINK_SECRET_MISMATCH")
            let rotated = try await link(
                ann.token,
                Self.linkBody(secret: Self.otherSecret, extra: ["rotate": true, "oldSecret": .string(Self.secret)]))
            #expect(rotated.status == .ok)
            let oldLogin = try await client.call(
                .post, "\(client.app)/links/login", contentType: "application/json", body: Self.linkBody())
            #expect(oldLogin.status == .badRequest)
            #expect(oldLogin.string("error_description") == "The external ID or secret is wrong.")
            let newLogin = try await client.call(
                .post, "\(client.app)/links/login", contentType: "application/json",
                body: Self.linkBody(secret: Self.otherSecret))
            #expect(newLogin.string("id") == ann.id)
            // An unknown pair answers exactly like a wrong secret.
            let unknown = try await client.call(
                .post, "\(client.app)/links/login", contentType: "application/json", body: Self.linkBody("_nobody"))
            #expect(unknown.status == oldLogin.status)
            #expect(unknown.object == oldLogin.object)
        }
    }

    @Test(
        "A squatter who links another's external ID first neither blocks them nor learns anything"
    )
    func squattingNeverBlocks() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let mallory = try await client.pseudoUser()
            let ann = try await client.pseudoUser()
            func link(_ token: String, secret: String) async throws -> TestServer.Reply {
                try await client.call(
                    .post, "\(client.app)/users/me/links", token: token, contentType: "application/json",
                    body: Self.linkBody(secret: secret))
            }
            // Mallory knows Ann's external ID (it is not secret) and links it first.
            #expect(try await link(mallory.token, secret: Self.otherSecret).status == .created)
            // Ann links as usual: created, with nothing said about Mallory's link.
            let annLinked = try await link(ann.token, secret: Self.secret)
            #expect(annLinked.status == .created)
            #expect(!annLinked.text.contains(mallory.id))
            // Ann's new device gets Ann back; Mallory's secret gets Mallory, never Ann.
            func login(_ secret: String) async throws -> String? {
                try await client.call(
                    .post, "\(client.app)/links/login", contentType: "application/json",
                    body: Self.linkBody(secret: secret)
                ).string("id")
            }
            #expect(try await login(Self.secret) == ann.id)
            #expect(try await login(Self.otherSecret) == mallory.id)
            // The squat is in the security audit, as a link like any other.
            let admin = try await client.adminToken()
            let audit = try await client.call(.get, "\(client.app)/security-audit?limit=100", token: admin)
            let created = (audit.object["events"]?.arrayValue ?? []).compactMap(\.objectValue)
                .filter { $0["event"] == "LINK_CREATED" }
            #expect(created.count == 2)
        }
    }

    @Test("Unlinking: the pair no longer logs in; listing and unlinking others' links is refused")
    func unlink() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let ann = try await client.pseudoUser()
            let bob = try await client.pseudoUser()
            _ = try await client.call(
                .post, "\(client.app)/users/me/links", token: ann.token, contentType: "application/json",
                body: Self.linkBody())
            let path = "\(client.app)/users/\(ann.id)/links/icloud/\(Self.externalID)"
            #expect(
                try await client.call(.get, "\(client.app)/users/\(ann.id)/links", token: bob.token).status
                    == .forbidden)
            #expect(try await client.call(.delete, path, token: bob.token).status == .forbidden)
            let admin = try await client.adminToken()
            #expect(
                try await client.call(.get, "\(client.app)/users/\(ann.id)/links", token: admin).object["links"]?
                    .arrayValue?.count == 1)
            #expect(try await client.call(.delete, path, token: ann.token).status == .noContent)
            let again = try await client.call(.delete, path, token: ann.token)
            #expect(again.status == .notFound)
            #expect(again.errorCode == "LINK_NOT_FOUND")
            let login = try await client.call(
                .post, "\(client.app)/links/login", contentType: "application/json", body: Self.linkBody())
            #expect(login.status == .badRequest)
            // Bob may now link the freed pair.
            let bobLinks = try await client.call(
                .post, "\(client.app)/users/me/links", token: bob.token, contentType: "application/json",
                body: Self.linkBody())
            #expect(bobLinks.status == .created)
        }
    }

    @Test("An external ID with '%', '/' and spaces unlinks at the Location it was given, and only that link")
    func unlinkEncodedExternalID() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let ann = try await client.pseudoUser()
            // Decoded twice, "50%2541" would name the other link, "team/50A ok".
            let tricky = "team/50%41 ok+1"
            var locations: [String: String] = [:]
            for externalID in [tricky, "team/50A ok+1"] {
                let linked = try await client.call(
                    .post, "\(client.app)/users/me/links", token: ann.token, contentType: "application/json",
                    body: Self.linkBody(externalID, secret: externalID == tricky ? Self.secret : Self.otherSecret))
                #expect(linked.status == .created)
                locations[externalID] = try #require(linked.headers[.location])
            }
            #expect(locations[tricky]?.hasSuffix("/links/icloud/team%2F50%2541%20ok+1") == true)
            #expect(try await client.call(.delete, locations[tricky]!, token: ann.token).status == .noContent)
            let left = try await client.call(.get, "\(client.app)/users/me/links", token: ann.token)
            #expect(
                left.object["links"]?.arrayValue?.compactMap { $0.objectValue?["externalID"]?.stringValue } == [
                    "team/50A ok+1"
                ])
            #expect(try await client.call(.delete, locations[tricky]!, token: ann.token).status == .notFound)
        }
    }

    @Test("Wrong secrets lock the external ID out, exponentially longer, even for the right secret; success resets")
    func lockout() async throws {
        let clock = ManualClock()
        let server = try await TestServer.make(clock: clock)
        try await server.run { client in
            let ann = try await client.pseudoUser()
            _ = try await client.call(
                .post, "\(client.app)/users/me/links", token: ann.token, contentType: "application/json",
                body: Self.linkBody())
            func login(_ secret: String) async throws -> TestServer.Reply {
                try await client.call(
                    .post, "\(client.app)/links/login", contentType: "application/json",
                    body: Self.linkBody(secret: secret))
            }
            for _ in 0..<4 {
                #expect(
                    try await login(Self.otherSecret).string("error_description")
                        == "The external ID or secret is wrong.")
            }
            _ = try await login(Self.otherSecret)  // the fifth: locks for 30 s
            let locked = try await login(Self.secret)
            #expect(locked.status == .badRequest)
            #expect(locked.string("errorCode") == "invalid_grant")
            #expect(locked.string("error_description") == "The login name is locked")
            #expect(locked.headers[.retryAfter] == "30")
            clock.advance(seconds: 31)
            _ = try await login(Self.otherSecret)  // the sixth: 60 s
            #expect(try await login(Self.secret).headers[.retryAfter] == "60")
            clock.advance(seconds: 61)
            #expect(try await login(Self.secret).status == .ok)
            // Reset: four more failures do not lock.
            for _ in 0..<4 { _ = try await login(Self.otherSecret) }
            #expect(try await login(Self.secret).status == .ok)

            let admin = try await client.adminToken()
            let audit = try await client.call(.get, "\(client.app)/security-audit?limit=100", token: admin)
            let events = (audit.object["events"]?.arrayValue ?? []).compactMap { $0.objectValue?["event"]?.stringValue }
            for kind in ["LINK_CREATED", "LINK_LOGIN", "LINK_LOGIN_FAILED", "LINK_LOGIN_LOCKED"] {
                #expect(events.contains(kind), "\(kind)")
            }
            #expect(events.filter { $0 == "LINK_LOGIN_FAILED" }.count == 10)
            #expect(try await client.call(.get, "\(client.app)/security-audit", token: ann.token).status == .forbidden)
        }
    }

    @Test("Failed link logins from one client address lock that address out, for every external ID")
    func addressLockout() async throws {
        var abuse = AbuseControls()
        abuse.proxyTrust = .anyPeer
        let server = try await TestServer.make(abuse: abuse)
        try await server.run { client in
            let ann = try await client.pseudoUser()
            _ = try await client.call(
                .post, "\(client.app)/users/me/links", token: ann.token, contentType: "application/json",
                body: Self.linkBody())
            func login(_ externalID: String, secret: String = LinkRoutesTests.otherSecret, from address: String)
                async throws -> TestServer.Reply
            {
                try await client.call(
                    .post, "\(client.app)/links/login", contentType: "application/json",
                    body: Self.linkBody(externalID, secret: secret),
                    headers: [HTTPField.Name("X-Forwarded-For")!: address])
            }
            // Twenty guesses at twenty different external IDs from one address...
            for index in 0..<20 { _ = try await login("_guess\(index)", from: "203.0.113.7") }
            // ...lock the address, even for Ann's pair and secret.
            let locked = try await login(Self.externalID, secret: Self.secret, from: "203.0.113.7")
            #expect(locked.string("error_description") == "The login name is locked")
            #expect(locked.headers[.retryAfter] != nil)
            // Another address is not affected; the proxy's last hop counts, not what a client prepends.
            #expect(try await login(Self.externalID, secret: Self.secret, from: "198.51.100.2").status == .ok)
            #expect(
                try await login(Self.externalID, secret: Self.secret, from: "198.51.100.2, 203.0.113.7").status
                    == .badRequest)
        }
    }
}
