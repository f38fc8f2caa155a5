import HTTPTypes
import TestSupport
import Testing
import TopicGateCore

/// Token holders, access contexts and subscribers are kept in memory between requests; each
/// test first makes the gateway keep them (a request that reads them), then changes them and
/// shows that the very next request, right after the change returned, decides on the change.
@Suite("Access facts kept in memory never outlive a change")
struct AccessCacheTests {
    @Test("A disabled user's token stops at once, works again once enabled; a password change ends old tokens")
    func tokens() async throws {
        try await TestServer.make().run { client in
            let admin = try await client.adminToken()
            let ann = try await client.normalUser("ann")
            // A second session, which the password change ends (the changing one goes on).
            let other = try await client.login("ann", password: "password123")
            try await client.call(.get, "\(client.app)/users/me", token: ann.token).expect(.ok)
            try await client.call(.get, "\(client.app)/users/me", token: other).expect(.ok)
            for disabled in [true, false] {
                try await client.call(
                    .put, "\(client.app)/users/\(ann.id)/status", token: admin, json: ["disabled": .bool(disabled)]
                ).expect(.noContent)
                let me = try await client.call(.get, "\(client.app)/users/me", token: ann.token)
                #expect(disabled ? me.errorCode == "USER_DISABLED" : me.status == .ok)
            }
            try await client.call(
                .put, "\(client.app)/users/me/password", token: ann.token,
                contentType: "application/vnd.kii.ChangePasswordRequest+json",
                json: ["oldPassword": "password123", "newPassword": "password456"]
            ).expect(.noContent)
            #expect(try await client.call(.get, "\(client.app)/users/me", token: other).errorCode == "WRONG_TOKEN")
            try await client.call(.get, "\(client.app)/users/me", token: ann.token).expect(.ok)
        }
    }

    @Test(
        "users/me kept in memory shows each change from the next request on: a profile update, an upgrade to a normal user, a disabled user, a deleted one"
    )
    func users() async throws {
        try await TestServer.make().run { client in
            let admin = try await client.adminToken()
            let ann = try await client.pseudoUser()
            let me = "\(client.app)/users/me"
            #expect(try await client.call(.get, me, token: ann.token).string("displayName") == nil)
            try await client.call(
                .post, me, token: ann.token, contentType: "application/json", body: #"{"displayName":"Ann"}"#
            ).expect(.ok)
            #expect(try await client.call(.get, me, token: ann.token).string("displayName") == "Ann")
            try await client.call(
                .post, me, token: ann.token, contentType: "application/json",
                body: #"{"loginName":"ann","password":"password123"}"#
            ).expect(.ok)
            let upgraded = try await client.call(.get, me, token: ann.token)
            #expect(upgraded.string("loginName") == "ann")
            #expect(upgraded.object["_hasPassword"] == .bool(true))
            // Read by ID by the admin, kept too, and as current.
            #expect(
                try await client.call(.get, "\(client.app)/users/\(ann.id)", token: admin).string("loginName") == "ann")
            try await client.call(
                .put, "\(client.app)/users/\(ann.id)/status", token: admin, json: ["disabled": true]
            ).expect(.noContent)
            #expect(try await client.call(.get, me, token: ann.token).errorCode == "USER_DISABLED")
            #expect(
                try await client.call(.get, "\(client.app)/users/\(ann.id)", token: admin).object["_disabled"]
                    == .bool(true))
            try await client.call(.delete, "\(client.app)/users/\(ann.id)", token: admin).expect(.noContent)
            #expect(try await client.call(.get, "\(client.app)/users/\(ann.id)", token: admin).status == .notFound)
        }
    }

    @Test("A member removed from a group can no longer send to the group's topic, from the next request on")
    func membership() async throws {
        try await TestServer.make().run { client in
            let bob = try await client.normalUser("bob")
            let ann = try await client.normalUser("ann")
            let topic = try await client.groupTopic(owner: bob.token, members: [ann.id])
            let group = topic.split(separator: "/")[4]
            // Members may send to a group's topic by default.
            try await client.send(topic, token: ann.token).expect(.created)
            try await client.call(.delete, "\(client.app)/groups/\(group)/members/\(ann.id)", token: bob.token)
                .expect(.noContent)
            let refused = try await client.send(topic, token: ann.token)
            #expect(refused.status == .forbidden)
        }
    }

    @Test("An unsubscribed user is no recipient of the next send; a new subscriber is")
    func subscribers() async throws {
        try await TestServer.make().run { client in
            let ann = try await client.normalUser("ann")
            let bob = try await client.normalUser("bob")
            let topic = "\(client.app)/users/\(ann.id)/topics/inbox"
            try await client.call(.put, topic, token: ann.token).expect(.noContent)
            try await client.subscribe(topic, userID: ann.id, token: ann.token)
            try await client.send(topic, token: ann.token).expect(.created)
            #expect(client.lastRecipients == [.user(UserID(ann.id))])
            try await client.call(.delete, "\(topic)/push/subscriptions/users/\(ann.id)", token: ann.token)
                .expect(.noContent)
            try await client.send(topic, token: ann.token).expect(.created)
            #expect(client.lastRecipients == [])
            // Bob may subscribe once the topic lets him; he is then a recipient.
            try await client.call(.put, "\(topic)/acl/SUBSCRIBE_TO_TOPIC/UserID:\(bob.id)", token: ann.token)
                .expect(.noContent)
            try await client.subscribe(topic, userID: bob.id, token: bob.token)
            try await client.send(topic, token: ann.token).expect(.created)
            #expect(client.lastRecipients == [.user(UserID(bob.id))])
        }
    }

    @Test(
        "A deleted user's topic subscribers and token are gone at once; an unsubscription and a revoked ANY_AUTHENTICATED_USER entry count from the next send"
    )
    func deletion() async throws {
        try await TestServer.make().run { client in
            let admin = try await client.adminToken()
            let ann = try await client.normalUser("ann")
            let bob = try await client.normalUser("bob")
            let topic = "\(client.app)/topics/news"
            try await client.call(.put, topic, token: admin).expect(.noContent)
            try await client.call(.put, "\(topic)/acl/SUBSCRIBE_TO_TOPIC/UserID:ANY_AUTHENTICATED_USER", token: admin)
            try await client.subscribe(topic, userID: ann.id, token: ann.token)
            try await client.subscribe(topic, userID: bob.id, token: bob.token)
            try await client.send(topic, token: admin).expect(.created)
            #expect(client.lastRecipients?.count == 2)
            try await client.call(.delete, "\(client.app)/users/\(ann.id)", token: admin).expect(.noContent)
            #expect(try await client.call(.get, "\(client.app)/users/me", token: ann.token).errorCode == "WRONG_TOKEN")
            try await client.send(topic, token: admin).expect(.created)
            #expect(client.lastRecipients == [.user(UserID(bob.id))])
            // The subscriber list a send to such a topic keeps follows an unsubscription, and the
            // revoked entry: then a subscriber needs an entry of its own.
            let carol = try await client.normalUser("carol")
            try await client.subscribe(topic, userID: carol.id, token: carol.token)
            try await client.call(.delete, "\(topic)/push/subscriptions/users/\(bob.id)", token: bob.token)
                .expect(.noContent)
            try await client.send(topic, token: admin).expect(.created)
            #expect(client.lastRecipients == [.user(UserID(carol.id))])
            try await client.call(
                .delete, "\(topic)/acl/SUBSCRIBE_TO_TOPIC/UserID:ANY_AUTHENTICATED_USER", token: admin
            ).expect(.noContent)
            try await client.send(topic, token: admin).expect(.created)
            #expect(client.lastRecipients == [])
        }
    }

    @Test(
        "A thing, its owners and its owners' groups kept for commands: a removed owner, a member who left, an updated thing and a deleted thing count from the next request on"
    )
    func things() async throws {
        try await TestServer.make().run { client in
            let ann = try await client.pseudoUser()
            let bob = try await client.pseudoUser()
            let group = try await client.group(owner: ann.token, members: [bob.id])
            let thing = try await client.thing("lamp-1")
            let ownership = "\(client.app)/things/\(thing.id)/ownership"
            try await client.call(.put, "\(ownership)/user:\(ann.id)", token: thing.token).expect(.noContent)
            try await client.call(.put, "\(ownership)/group:\(group)", token: thing.token).expect(.noContent)
            let app = client.server.app.id.rawValue
            func issue(_ token: String, as issuer: String) async throws -> APIReply {
                try await client.call(
                    .post, "/thing-if/apps/\(app)/targets/thing:\(thing.id)/commands", token: token,
                    contentType: "application/json",
                    json: ["actions": [["Lamp": [["turnPower": true]]]], "issuer": .string(issuer)])
            }
            try await issue(ann.token, as: "user:\(ann.id)").expect(.created)
            try await issue(bob.token, as: "group:\(group)").expect(.created)
            try await client.call(.delete, "\(ownership)/user:\(ann.id)", token: thing.token).expect(.noContent)
            #expect(try await issue(ann.token, as: "user:\(ann.id)").status == .forbidden)
            try await client.call(.delete, "\(client.app)/groups/\(group)/members/\(bob.id)", token: ann.token)
                .expect(.noContent)
            #expect(try await issue(bob.token, as: "group:\(group)").status == .forbidden)
            // Read through the kept thing, an update shows from the next read on.
            let path = "\(client.app)/things/\(thing.id)"
            #expect(try await client.call(.get, path, token: thing.token).string("_thingType") == "lamp")
            try await client.call(
                .patch, path, token: thing.token, contentType: "application/vnd.kii.ThingUpdateRequest+json",
                json: ["_thingType": "heater"]
            ).expect(.ok)
            #expect(try await client.call(.get, path, token: thing.token).string("_thingType") == "heater")
            try await issue(ann.token, as: "group:\(group)").expect(.created)
            try await client.call(.delete, "\(client.app)/things/\(thing.id)", token: thing.token).expect(.noContent)
            #expect(try await issue(ann.token, as: "group:\(group)").errorCode == "THING_NOT_FOUND")
        }
    }
}
