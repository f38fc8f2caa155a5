import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore
import TopicGateStore

@testable import TopicGateServer

/// Rate limits on sign-up and login failures, login-name lockout, disabling users and things,
/// and the idle pseudo user cleanup, through the router with a clock the test moves.
@Suite("Abuse controls over HTTP")
struct AbuseControlTests {
    static func from(_ address: String) -> HTTPFields { [HTTPField.Name("X-Forwarded-For")!: address] }

    /// A password login of `name` from `address` (forwarded by a trusted proxy).
    static func login(_ client: TestServer.Client, _ name: String, _ password: String, from address: String)
        async throws -> TestServer.Reply
    {
        try await client.call(
            .post, "\(client.app)/oauth2/token", contentType: "application/json",
            json: ["username": .string(name), "password": .string(password)], headers: from(address))
    }

    @Test(
        "Anonymous app tokens: a budget per address (429 past it, other addresses and the admin unaffected), each living an hour and refused after"
    )
    func anonymousTokens() async throws {
        let clock = ManualClock()
        var abuse = AbuseControls()
        abuse.proxyTrust = .anyPeer
        abuse.anonymousTokensPerAddress = RateLimit(count: 3, period: .seconds(60))
        let server = try await TestServer.make(abuse: abuse, clock: clock)
        try await server.run { client in
            func anonymous(_ address: String, expiresAt: Int64? = nil) async throws -> TestServer.Reply {
                var body: [String: JSONValue] = [
                    "grant_type": "client_credentials", "client_id": .string(client.appID), "client_secret": "dummy",
                ]
                if let expiresAt { body["expiresAt"] = .int(expiresAt) }
                return try await client.call(
                    .post, "\(client.app)/oauth2/token", json: .object(body), headers: Self.from(address))
            }
            var tokens: [String] = []
            for _ in 0..<3 {
                let granted = try await anonymous("203.0.113.7", expiresAt: clock.now + 7 * 86_400_000).expect(.ok)
                #expect((granted.object["expires_in"]?.intValue ?? .max) <= 3600)
                tokens.append(try granted.require("access_token"))
            }
            let limited = try await anonymous("203.0.113.7")
            #expect(limited.status == .tooManyRequests)
            #expect(limited.string("access_token") == nil)
            try await anonymous("198.51.100.7").expect(.ok)
            _ = try await client.adminToken()
            // Good for onboarding now; an hour later, refused.
            let onboarding = "/thing-if/apps/\(client.appID)/onboardings"
            let media = "application/vnd.kii.onboardingWithVendorThingIDByThing+json"
            try await client.call(
                .post, onboarding, token: tokens[0], contentType: media,
                json: ["vendorThingID": "anon-1", "thingPassword": "anon-pass"]
            ).expect(.ok)
            clock.advance(seconds: 3601)
            let expired = try await client.call(
                .post, onboarding, token: tokens[1], contentType: media,
                json: ["vendorThingID": "anon-2", "thingPassword": "anon-pass"])
            #expect(expired.status == .forbidden)
            #expect(expired.errorCode == "WRONG_TOKEN")
        }
    }

    @Test("Sign-ups beyond the per-address and per-app limits answer 429 with Retry-After")
    func signupLimits() async throws {
        let clock = ManualClock()
        var abuse = AbuseControls()
        abuse.proxyTrust = .anyPeer
        abuse.signupsPerAddress = RateLimit(count: 3, period: .seconds(60))
        abuse.signupsPerApp = RateLimit(count: 5, period: .seconds(60))
        let server = try await TestServer.make(abuse: abuse, clock: clock)
        try await server.run { client in
            func signUp(_ address: String) async throws -> TestServer.Reply {
                try await client.call(
                    .post, "\(client.app)/users",
                    contentType: "application/vnd.kii.RegistrationAndAuthorizationRequest+json",
                    body: "{}", headers: Self.from(address))
            }
            for _ in 0..<3 { #expect(try await signUp("203.0.113.1").status == .created) }
            let limited = try await signUp("203.0.113.1")
            #expect(limited.status == .tooManyRequests)
            #expect(limited.errorCode == "TOO_MANY_REQUESTS")
            #expect(limited.headers[.retryAfter] == "20")
            #expect(limited.object["retryAfter"] == 20)
            #expect(limited.string("_accessToken") == nil)
            // Another address still signs up, until the app's budget (5) is spent.
            #expect(try await signUp("198.51.100.1").status == .created)
            #expect(try await signUp("198.51.100.2").status == .created)
            #expect(try await signUp("198.51.100.3").status == .tooManyRequests)
            // Time refills both.
            clock.advance(seconds: 21)
            #expect(try await signUp("203.0.113.1").status == .created)
            // The admin is not limited.
            let admin = try await client.adminToken()
            #expect(
                try await client.call(
                    .post, "\(client.app)/users", token: admin, contentType: "application/json", body: "{}",
                    headers: Self.from("203.0.113.1")
                ).status == .created)
        }
    }

    @Test("Failed logins from one address spend its budget: then 429, even with the right password")
    func loginFailureLimit() async throws {
        var abuse = AbuseControls()
        abuse.proxyTrust = .anyPeer
        abuse.loginFailuresPerAddress = RateLimit(count: 3, period: .seconds(3600))
        let server = try await TestServer.make(abuse: abuse)
        try await server.run { client in
            _ = try await client.normalUser("carol")
            _ = try await client.normalUser("dave")
            func login(_ name: String, _ password: String, from address: String) async throws -> TestServer.Reply {
                try await Self.login(client, name, password, from: address)
            }
            for name in ["carol", "dave", "nobody"] {
                #expect(try await login(name, "wrong-password", from: "203.0.113.9").status == .badRequest)
            }
            let limited = try await login("carol", "password123", from: "203.0.113.9")
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] != nil)
            #expect(try await login("carol", "password123", from: "198.51.100.9").status == .ok)
        }
    }

    @Test("Failures for unknown names cannot switch off an app's logins; guessing one account still locks it")
    func appBudgetCannotBeTurnedAgainstUsers() async throws {
        var abuse = AbuseControls()
        abuse.proxyTrust = .anyPeer
        abuse.loginFailuresPerApp = RateLimit(count: 10, period: .seconds(3600))
        let server = try await TestServer.make(abuse: abuse)
        try await server.run { client in
            for name in ["carol", "dave", "erin", "frank", "gina"] { _ = try await client.normalUser(name) }
            func login(_ name: String, _ password: String, from address: String) async throws -> TestServer.Reply {
                try await Self.login(client, name, password, from: address)
            }
            // The review's attack: ten failures for names that do not exist, from ten addresses.
            for number in 0..<10 {
                #expect(try await login("nobody-\(number)", "guess", from: "203.0.113.\(number)").status == .badRequest)
            }
            #expect(try await login("nobody-10", "guess", from: "203.0.113.10").status == .tooManyRequests)
            // A real user's right password still gets in, from anywhere.
            #expect(try await login("carol", "password123", from: "198.51.100.1").status == .ok)
            // Guessing one account still locks it, the right password included.
            for number in 0..<5 {
                #expect(try await login("dave", "wrong", from: "192.0.2.\(number)").status == .badRequest)
            }
            let locked = try await login("dave", "password123", from: "192.0.2.99")
            #expect(locked.string("error_description") == "The login name is locked")
            // With the app's budget for existing accounts spent too (ten wrong passwords over three
            // accounts), a right password still gets in, only more slowly.
            for (name, count) in [("erin", 3), ("frank", 2)] {
                for number in 0..<count {
                    #expect(try await login(name, "wrong", from: "192.0.2.\(100 + number)").status == .badRequest)
                }
            }
            // docs/security.md: "each check of an existing account waits one second".
            let began = ContinuousClock.now
            #expect(try await login("gina", "password123", from: "192.0.2.150").status == .ok)
            #expect(ContinuousClock.now - began >= .milliseconds(1_000), "the check was not slowed")
            #expect(try await login("gina", "wrong", from: "192.0.2.151").status == .badRequest)
        }
    }

    @Test(
        "Wrong client secrets spend their address's budget (then 429, the right secret too), never the app's; users' failures never lock the admin out"
    )
    func adminGuessesSpendTheAddress() async throws {
        var abuse = AbuseControls()
        abuse.proxyTrust = .anyPeer
        abuse.loginFailuresPerAddress = RateLimit(count: 3, period: .seconds(3600))
        abuse.loginFailuresPerApp = RateLimit(count: 3, period: .seconds(3600))
        let server = try await TestServer.make(abuse: abuse)
        try await server.run { client in
            let credentials = try await client.adminCredentials()
            func admin(_ secret: String, from address: String) async throws -> TestServer.Reply {
                try await client.call(
                    .post, "\(client.app)/oauth2/token", contentType: "application/json",
                    json: [
                        "grant_type": "client_credentials", "client_id": .string(credentials.clientID),
                        "client_secret": .string(secret),
                    ], headers: Self.from(address))
            }
            // Three wrong secrets from one address spend its budget: the right secret from there
            // is refused too, and from another address it is not.
            for _ in 0..<3 {
                let wrong = try await admin("wrong-secret", from: "203.0.113.7")
                #expect(wrong.status == .badRequest, "\(wrong.status) \(wrong.object)")
                #expect(wrong.object["errorCode"] == "invalid_client", "\(wrong.object)")
            }
            let limited = try await admin(credentials.clientSecret, from: "203.0.113.7")
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] != nil)
            #expect(try await admin(credentials.clientSecret, from: "198.51.100.7").status == .ok)
            // Three more wrong secrets, one from each of three addresses: had they spent the app's
            // budget (3), a login for an unknown name would now answer 429.
            for number in 0..<3 {
                _ = try await admin("wrong-secret", from: "192.0.2.\(number)")
            }
            #expect(try await Self.login(client, "nobody", "guess", from: "192.0.2.50").status == .badRequest)
            // Users' failures spend the app's budgets (unknown names: then 429); the admin still gets in.
            for number in 51..<53 {
                _ = try await Self.login(client, "nobody-\(number)", "guess", from: "192.0.2.\(number)")
            }
            #expect(try await Self.login(client, "nobody-99", "guess", from: "192.0.2.99").status == .tooManyRequests)
            #expect(try await admin(credentials.clientSecret, from: "192.0.2.100").status == .ok)
        }
    }

    @Test("IPv6 clients are budgeted by their /64: one block cannot fill up with fresh addresses")
    func ipv6ByNetwork() async throws {
        #expect(AddressGroup.key("2001:db8:0:0:1::7") == "2001:db8:0:0::/64")
        #expect(AddressGroup.key("2001:db8::1") == AddressGroup.key("2001:db8::ffff:1"))
        #expect(AddressGroup.key("2001:db8:0:1::1") != AddressGroup.key("2001:db8::1"))
        #expect(AddressGroup.key("::ffff:203.0.113.9") == "203.0.113.9")
        #expect(AddressGroup.key("203.0.113.9") == "203.0.113.9")
        var abuse = AbuseControls()
        abuse.proxyTrust = .anyPeer
        abuse.loginFailuresPerAddress = RateLimit(count: 3, period: .seconds(3600))
        let server = try await TestServer.make(abuse: abuse)
        try await server.run { client in
            _ = try await client.normalUser("carol")
            func login(_ password: String, from address: String) async throws -> TestServer.Reply {
                try await Self.login(client, "carol", password, from: address)
            }
            for host in 1...3 { #expect(try await login("wrong", from: "2001:db8::\(host)").status == .badRequest) }
            #expect(try await login("password123", from: "2001:db8::4").status == .tooManyRequests)
            #expect(try await login("password123", from: "2001:db8:0:1::4").status == .ok)
        }
    }

    @Test(
        "Five wrong passwords lock the login name for 30 s, each failure after a lock doubles it up to an hour; the right password is refused while locked"
    )
    func loginLockout() async throws {
        let clock = ManualClock()
        let server = try await TestServer.make(clock: clock)
        try await server.run { client in
            _ = try await client.normalUser("erin")
            func login(_ name: String, _ password: String) async throws -> TestServer.Reply {
                try await client.call(
                    .post, "\(client.app)/oauth2/token", contentType: "application/json",
                    json: ["username": .string(name), "password": .string(password)])
            }
            for _ in 0..<5 {
                #expect(
                    try await login("erin", "wrong-password").string("error_description")
                        == "The username or password is wrong.")
            }
            let locked = try await login("ERIN", "password123")
            #expect(locked.status == .badRequest)
            #expect(locked.string("error_description") == "The login name is locked")
            #expect(locked.headers[.retryAfter] == "30")
            // docs/security.md: 30 s, doubling with each failure after a lock, up to an hour.
            var lock: Int64 = 30
            for expected: Int64 in [60, 120, 240, 480, 960, 1_920, 3_600, 3_600] {
                clock.advance(seconds: lock - 1)
                #expect(try await login("erin", "password123").status == .badRequest, "still locked")
                clock.advance(seconds: 2)
                #expect(try await login("erin", "wrong-password").status == .badRequest)
                let again = try await login("erin", "password123")
                #expect(again.string("error_description") == "The login name is locked")
                #expect(again.headers[.retryAfter] == "\(expected)", "after the \(lock) s lock")
                lock = expected
            }
            clock.advance(seconds: 3_601)
            #expect(try await login("erin", "password123").status == .ok)
        }
    }

    @Test("A disabled user's and a disabled thing's tokens and logins are refused; enabling restores them")
    func disable() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let admin = try await client.adminToken()
            let user = try await client.normalUser("frank")
            let thing = try await client.thing("lamp-1")
            #expect(
                try await client.call(
                    .put, "\(client.app)/things/\(thing.id)/status", token: user.token, contentType: "application/json",
                    body: #"{"disabled":true}"#
                ).status == .forbidden)
            #expect(
                try await client.call(
                    .put, "\(client.app)/things/\(thing.id)/status", token: admin, contentType: "application/json",
                    body: #"{"disabled":"yes"}"#
                ).status == .badRequest)
            for (path, disabled) in [("users/\(user.id)", true), ("things/\(thing.id)", true)] {
                #expect(
                    try await client.call(
                        .put, "\(client.app)/\(path)/status", token: admin, contentType: "application/json",
                        json: ["disabled": .bool(disabled)]
                    ).status == .noContent)
            }
            let userRefused = try await client.call(.get, "\(client.app)/users/me", token: user.token)
            #expect(userRefused.status == .unauthorized)
            #expect(userRefused.errorCode == "USER_DISABLED")
            let thingRefused = try await client.call(.get, "\(client.app)/things/\(thing.id)", token: thing.token)
            #expect(thingRefused.status == .unauthorized)
            #expect(thingRefused.errorCode == "THING_DISABLED")
            let thingLogin = try await client.call(
                .post, "\(client.app)/oauth2/token", contentType: "application/json",
                body: #"{"username":"VENDOR_THING_ID:lamp-1","password":"thing-password"}"#)
            #expect(thingLogin.status == .badRequest)
            #expect(
                try await client.call(.get, "\(client.app)/things/\(thing.id)", token: admin).object["_disabled"]
                    == true)

            for path in ["users/\(user.id)", "things/\(thing.id)"] {
                #expect(
                    try await client.call(
                        .put, "\(client.app)/\(path)/status", token: admin, contentType: "application/json",
                        body: #"{"disabled":false}"#
                    ).status == .noContent)
            }
            #expect(try await client.call(.get, "\(client.app)/users/me", token: user.token).status == .ok)
            #expect(try await client.call(.get, "\(client.app)/things/\(thing.id)", token: thing.token).status == .ok)

            let audit = try await client.call(.get, "\(client.app)/security-audit", token: admin)
            let events = (audit.object["events"]?.arrayValue ?? []).compactMap { $0.objectValue?["event"]?.stringValue }
            #expect(Set(events).isSuperset(of: ["USER_DISABLED", "USER_ENABLED", "THING_DISABLED", "THING_ENABLED"]))
        }
    }

    @Test(
        "Cleanup removes an idle pseudo user with all it had; keeps active, linked, normal users; dry run keeps all"
    )
    func cleanup() async throws {
        let clock = ManualClock()
        let server = try await TestServer.make(push: true, clock: clock)
        try await server.run { client in
            var admin = try await client.adminToken()
            let idle = try await client.pseudoUser()
            let active = try await client.pseudoUser()
            let linked = try await client.pseudoUser()
            let normal = try await client.normalUser("grace")
            _ = try await client.call(
                .post, "\(client.app)/users/me/links", token: linked.token, contentType: "application/json",
                body: LinkRoutesTests.linkBody())
            // The idle user's things: a user-scope topic, a subscription to a group topic, a device.
            #expect(
                try await client.call(.put, "\(client.app)/users/me/topics/inbox", token: idle.token).status
                    == .noContent)
            let group = try await client.group(owner: active.token, members: [idle.id])
            let groupTopic = "\(client.app)/groups/\(group)/topics/news"
            #expect(try await client.call(.put, groupTopic, token: active.token).status == .noContent)
            #expect(
                try await client.call(.put, "\(groupTopic)/push/subscriptions/users/\(idle.id)", token: idle.token)
                    .status == .noContent)
            let installed = try await client.call(
                .post, "\(client.app)/installations", token: idle.token, contentType: "application/json",
                body: #"{"deviceType":"MQTT"}"#)
            let installationID = try #require(installed.string("installationID"))

            clock.advance(seconds: 31 * 86_400)
            #expect(try await client.call(.get, "\(client.app)/users/me", token: active.token).status == .ok)
            // An admin token lives hours: the operator signs in again a month later.
            admin = try await client.adminToken()

            func clean(dryRun: Bool) async throws -> TestServer.Reply {
                try await client.call(
                    .post, "\(client.app)/pseudo-user-cleanup", token: admin, contentType: "application/json",
                    json: ["idleDays": 30, "dryRun": .bool(dryRun)])
            }
            #expect(
                try await client.call(
                    .post, "\(client.app)/pseudo-user-cleanup", token: active.token, contentType: "application/json",
                    body: #"{"idleDays":30}"#
                ).status == .forbidden)
            #expect(
                try await client.call(
                    .post, "\(client.app)/pseudo-user-cleanup", token: admin, contentType: "application/json",
                    body: #"{"idleDays":0}"#
                ).status == .badRequest)
            let preview = try await clean(dryRun: true)
            #expect(preview.status == .ok)
            #expect(preview.object["dryRun"] == true)
            #expect(
                preview.object["users"]?.arrayValue?.compactMap { $0.objectValue?["userID"]?.stringValue } == [idle.id])
            #expect(try await client.call(.get, "\(client.app)/users/\(idle.id)", token: admin).status == .ok)

            let removed = try await clean(dryRun: false)
            #expect(removed.object["count"] == 1)
            #expect(
                try await client.call(.get, "\(client.app)/users/\(idle.id)", token: admin).errorCode
                    == "USER_NOT_FOUND")
            #expect(try await client.call(.get, "\(client.app)/users/me", token: idle.token).errorCode == "WRONG_TOKEN")
            #expect(
                try await server.store.installation(appID: server.app.id, id: InstallationID(installationID)) == nil)
            #expect(
                try await client.call(.head, "\(client.app)/users/\(idle.id)/topics/inbox", token: admin).status
                    == .notFound)
            let subscribed = try await client.call(
                .get, "\(groupTopic)/push/subscriptions/users/\(idle.id)", token: admin)
            #expect(subscribed.status == .notFound)
            for kept in [active.id, linked.id, normal.id] {
                #expect(try await client.call(.get, "\(client.app)/users/\(kept)", token: admin).status == .ok)
            }
            #expect(try await clean(dryRun: false).object["count"] == 0)
            let audit = try await client.call(.get, "\(client.app)/security-audit", token: admin)
            #expect(
                (audit.object["events"]?.arrayValue ?? []).contains {
                    $0.objectValue?["event"] == "PSEUDO_USER_REMOVED"
                })
        }
    }
}
