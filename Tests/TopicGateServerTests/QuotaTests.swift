import Foundation
import HTTPTypes
import Hummingbird
import TestSupport
import Testing
import TopicGateCore
import TopicGateServer
import TopicGateStore

/// One identity cannot take what belongs to all: a user or thing holds at most so many live
/// installations, topics it created and subscriptions; past that, 403 `QUOTA_EXCEEDED` names
/// the quota, and nothing more is made. Freeing one (deleting an installation) makes room; the
/// admin is not capped.
@Suite("Per-principal quotas")
struct QuotaTests {
    static func server() async throws -> TestServer {
        var abuse = AbuseControls()
        abuse.installationsPerPrincipal = 3
        abuse.topicsPerPrincipal = 2
        abuse.subscriptionsPerPrincipal = 2
        return try await TestServer.make(abuse: abuse)
    }

    @Test("Installations: the fourth is refused, and deleting one makes room")
    func installations() async throws {
        try await Self.server().run { client in
            let user = try await client.pseudoUser()
            func install() async throws -> TestServer.Reply {
                try await client.call(
                    .post, "\(client.app)/installations", token: user.token,
                    contentType: "application/vnd.kii.InstallationCreationRequest+json", json: ["deviceType": "MQTT"])
            }
            var made: [String] = []
            for _ in 0..<3 { made.append(try await install().expect(.created).require("installationID")) }
            let refused = try await install()
            #expect(refused.status == .forbidden)
            #expect(refused.errorCode == "QUOTA_EXCEEDED")
            #expect(refused.object["quota"] == "installations")
            #expect(refused.object["limit"] == 3)
            try await client.call(.delete, "\(client.app)/installations/\(made[0])", token: user.token).expect(
                .noContent)
            try await install().expect(.created)
            // Another user has its own quota; the admin installs for anyone.
            let other = try await client.pseudoUser()
            try await client.call(
                .post, "\(client.app)/installations", token: other.token,
                contentType: "application/vnd.kii.InstallationCreationRequest+json", json: ["deviceType": "MQTT"]
            ).expect(.created)
            try await client.call(
                .post, "\(client.app)/installations", token: try await client.adminToken(),
                contentType: "application/vnd.kii.InstallationCreationRequest+json",
                json: ["deviceType": "MQTT", "userID": .string(user.id)]
            ).expect(.created)
        }
    }

    @Test("Requests racing past a quota do not end above it: of 40 installs and 40 topics at once, 3 and 2 are made")
    func racingPastTheQuota() async throws {
        let server = try await Self.server()
        try await server.run { client in
            let user = try await client.pseudoUser()
            let installs = try await allAtOnce(40) { _ in
                try await client.call(
                    .post, "\(client.app)/installations", token: user.token,
                    contentType: "application/vnd.kii.InstallationCreationRequest+json", json: ["deviceType": "MQTT"]
                ).status
            }
            #expect(installs.filter { $0 == .created }.count == 3, "\(installs)")
            #expect(installs.filter { $0 == .forbidden }.count == 37)
            let live = try await server.store.liveInstallations(
                appID: server.app.id, principals: [.user(UserID(user.id))])
            #expect(live.count == 3)
            let topics = try await allAtOnce(40) { index in
                try await client.call(.put, "\(client.app)/users/me/topics/racing-\(index)", token: user.token).status
            }
            #expect(topics.filter { $0 == .noContent }.count == 2, "\(topics)")
            #expect(try await server.store.topicCount(appID: server.app.id, creator: .user(UserID(user.id))) == 2)
        }
    }

    @Test(
        "The same registration ID installed again answers the same installation, past the quota too; installed with a new token of the user it replaces the old one; another user's is its own"
    )
    func reinstalledRegistrationID() async throws {
        let server = try await Self.server()
        try await server.run { client in
            let user = try await client.normalUser("reinstaller")
            func install(_ token: String, development: Bool = false) async throws -> String {
                try await client.call(
                    .post, "\(client.app)/installations", token: token,
                    contentType: "application/vnd.kii.InstallationCreationRequest+json",
                    json: [
                        "deviceType": "ANDROID", "installationRegistrationID": "fcm-token-1",
                        "development": .bool(development),
                    ]
                ).expect(.created).require("installationID")
            }
            // An app that installs at every start (the quota is 3).
            let first = try await install(user.token)
            for _ in 0..<5 { #expect(try await install(user.token) == first) }
            let live = try await server.store.liveInstallations(
                appID: server.app.id, principals: [.user(UserID(user.id))])
            #expect(live.map(\.id.rawValue) == [first])
            // Logged in again on the same phone: the new token's installation replaces the old one,
            // which is gone.
            let again = try await client.login("reinstaller", password: "password123")
            let second = try await install(again)
            #expect(second != first)
            #expect(
                try await client.call(.get, "\(client.app)/installations/\(first)", token: again).status == .notFound)
            #expect(try await install(again) == second)
            // Another development flag is another installation of the same device: it replaces too.
            let third = try await install(again, development: true)
            #expect(third != second)
            let after = try await server.store.liveInstallations(
                appID: server.app.id, principals: [.user(UserID(user.id))])
            #expect(after.map(\.id.rawValue) == [third])
            // Another user with the same registration ID has its own; the first user's stays.
            let other = try await client.pseudoUser()
            let others = try await install(other.token)
            #expect(others != third)
            #expect(
                try await client.call(.get, "\(client.app)/installations/\(third)", token: again).status == .ok)
        }
    }

    @Test(
        "Onboarding counts against the thing's installation quota: a thing onboarded again and again holds at most the quota, its newest installations"
    )
    func onboardingInstallations() async throws {
        var abuse = AbuseControls()
        abuse.installationsPerPrincipal = 3
        let server = try await TestServer.make(push: true, abuse: abuse)
        try await server.run { client in
            let owner = try await client.pseudoUser()
            var installations: [String] = []
            var thingID = ""
            for _ in 0..<5 {
                let onboarded = try await client.call(
                    .post, "/thing-if/apps/\(client.appID)/onboardings", token: owner.token,
                    contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
                    json: [
                        "vendorThingID": "rebooting-lamp", "thingPassword": "lamp-pass",
                        "owner": .string("user:\(owner.id)"),
                    ]
                ).expect(.ok)
                thingID = try onboarded.require("thingID")
                installations.append(
                    try #require(onboarded.object["mqttEndpoint"]?.objectValue?["installationID"]?.stringValue))
            }
            let live = try await server.store.liveInstallations(
                appID: server.app.id, principals: [.thing(ThingID(thingID))])
            #expect(Set(live.map(\.id.rawValue)) == Set(installations.suffix(3)))
        }
    }

    @Test(
        "Onboardings of one thing racing at its installation quota end at the quota: three stay live, and one whose installation was replaced at once is told to onboard again"
    )
    func onboardingsRacingAtTheQuota() async throws {
        var abuse = AbuseControls()
        abuse.installationsPerPrincipal = 3
        let server = try await TestServer.make(push: true, abuse: abuse)
        try await server.run { client in
            let owner = try await client.pseudoUser()
            @Sendable func onboard() async throws -> TestServer.Reply {
                try await client.call(
                    .post, "/thing-if/apps/\(client.appID)/onboardings", token: owner.token,
                    contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
                    json: [
                        "vendorThingID": "crowded-lamp", "thingPassword": "lamp-pass",
                        "owner": .string("user:\(owner.id)"),
                    ])
            }
            // Three to fill the quota, then twelve at once, each having to make room.
            var thingID = ""
            for _ in 0..<3 { thingID = try await onboard().expect(.ok).require("thingID") }
            let replies = try await allAtOnce(12) { _ in try await onboard() }
            var answered: Set<String> = []
            for reply in replies {
                if reply.status == .ok {
                    answered.insert(
                        try #require(reply.object["mqttEndpoint"]?.objectValue?["installationID"]?.stringValue))
                } else {
                    // Replaced by a newer one before its credentials were signed: told to onboard again.
                    #expect(reply.status == .conflict)
                    #expect(reply.errorCode == "OPERATION_NOT_ALLOWED")
                }
            }
            let live = try await server.store.liveInstallations(
                appID: server.app.id, principals: [.thing(ThingID(thingID))])
            #expect(live.count == 3)
            #expect(!answered.isEmpty)
            // The broker knows the replaced ones' credentials are revoked; the live ones are among those answered.
            #expect(Set(live.map(\.id.rawValue)).isSubset(of: answered))
        }
    }

    @Test("Topics and subscriptions: past the quota nothing more is made")
    func topicsAndSubscriptions() async throws {
        try await Self.server().run { client in
            let user = try await client.pseudoUser()
            let scope = "\(client.app)/users/\(user.id)/topics"
            for name in ["a", "b"] {
                try await client.call(.put, "\(scope)/\(name)", token: user.token).expect(.noContent)
            }
            let refused = try await client.call(.put, "\(scope)/c", token: user.token)
            #expect(refused.status == .forbidden)
            #expect(refused.object["quota"] == "topics")
            #expect(try await client.call(.head, "\(scope)/c", token: user.token).status == .notFound)
            for name in ["a", "b"] {
                try await client.subscribe("\(scope)/\(name)", userID: user.id, token: user.token)
            }
            // A third subscription, to a topic the admin made for everyone: refused.
            let admin = try await client.adminToken()
            try await client.call(.put, "\(client.app)/topics/news", token: admin).expect(.noContent)
            let third = try await client.call(
                .put, "\(client.app)/topics/news/push/subscriptions/users/\(user.id)", token: user.token)
            #expect(third.status == .forbidden)
            #expect(third.object["quota"] == "subscriptions")
            // Deleting a topic frees both.
            try await client.call(.delete, "\(scope)/a", token: user.token).expect(.noContent)
            try await client.call(
                .put, "\(client.app)/topics/news/push/subscriptions/users/\(user.id)", token: user.token
            )
            .expect(.noContent)
            try await client.call(.put, "\(scope)/c", token: user.token).expect(.noContent)
        }
    }
}
