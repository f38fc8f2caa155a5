import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore
import TopicGateServer
import TopicGateStore

@Suite("Topics, ACLs, subscriptions and sends over HTTP")
struct TopicRoutesTests {
    @Test("The README story: a group topic, an outsider refused, granted, allowed, revoked, refused")
    func groupTopicStory() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let ann = try await client.pseudoUser()
            let bob = try await client.pseudoUser()
            let eve = try await client.pseudoUser()
            let groupID = try await client.group(owner: ann.token, members: [bob.id])
            let topic = "\(client.app)/groups/\(groupID)/topics/chat"

            #expect(try await client.call(.put, topic, token: bob.token).status == .noContent)
            #expect(try await client.call(.put, topic, token: bob.token).errorCode == "TOPIC_ALREADY_EXISTS")
            #expect(
                try await client.call(.put, "\(topic)/push/subscriptions/users/\(ann.id)", token: ann.token).status
                    == .noContent)

            let refused = try await client.send(topic, token: eve.token)
            #expect(refused.status == .forbidden)
            #expect(refused.errorCode == "UNAUTHORIZED")
            #expect(refused.string("missingPermission") == "SEND_MESSAGE_TO_TOPIC")
            #expect(refused.string("message")?.contains("SEND_MESSAGE_TO_TOPIC") == true)
            #expect(refused.string("message")?.contains(bob.id) == false)
            #expect(refused.string("message")?.contains(ann.id) == false)
            let deliveriesBefore = server.dispatcher.messages.count

            #expect(
                try await client.call(.put, "\(topic)/acl/SEND_MESSAGE_TO_TOPIC/UserID:\(eve.id)", token: bob.token)
                    .status == .noContent)
            let allowed = try await client.send(topic, token: eve.token)
            #expect(allowed.status == .created)
            #expect(allowed.string("pushMessageID") != nil)
            #expect(server.dispatcher.messages.count == deliveriesBefore + 1)
            #expect(client.lastRecipients == [.user(UserID(ann.id))])
            let payload = try #require(
                server.dispatcher.messages.last.flatMap { try? JSONParser.parse($0.payload) }?.objectValue)
            #expect(payload["msg"] == "hello")
            #expect(payload["sender"] == .string(eve.id))
            #expect(payload["objectScopeGroupID"] == .string(groupID))

            #expect(
                try await client.call(.delete, "\(topic)/acl/SEND_MESSAGE_TO_TOPIC/UserID:\(eve.id)", token: bob.token)
                    .status == .noContent)
            #expect(try await client.send(topic, token: eve.token).status == .forbidden)
            #expect(server.dispatcher.messages.count == deliveriesBefore + 1)
        }
    }

    @Test("Default entries per scope are listed in Kii's ACLRetrievalResponse shape")
    func defaultListings() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let admin = try await client.adminToken()
            let ann = try await client.pseudoUser()
            let groupID = try await client.group(owner: ann.token)

            #expect(try await client.call(.put, "\(client.app)/topics/news", token: admin).status == .noContent)
            let app = try await client.call(.get, "\(client.app)/topics/news/acl", token: admin)
            #expect(app.object["SUBSCRIBE_TO_TOPIC"] == [["userID": "ANY_AUTHENTICATED_USER"]])
            #expect(app.object["SEND_MESSAGE_TO_TOPIC"] == [])

            #expect(
                try await client.call(.put, "\(client.app)/groups/\(groupID)/topics/chat", token: ann.token).status
                    == .noContent)
            let group = try await client.call(.get, "\(client.app)/groups/\(groupID)/topics/chat/acl", token: ann.token)
            for action in ["SUBSCRIBE_TO_TOPIC", "SEND_MESSAGE_TO_TOPIC"] {
                #expect(
                    Set(group.object[action]?.arrayValue ?? []) == [
                        ["userID": .string(ann.id)], ["groupID": .string(groupID)],
                    ])
            }

            #expect(
                try await client.call(.put, "\(client.app)/users/me/topics/inbox", token: ann.token).status
                    == .noContent)
            let user = try await client.call(.get, "\(client.app)/users/\(ann.id)/topics/inbox/acl", token: ann.token)
            #expect(user.object["SUBSCRIBE_TO_TOPIC"] == [["userID": .string(ann.id)]])
            #expect(user.object["SEND_MESSAGE_TO_TOPIC"] == [["userID": .string(ann.id)]])

            let perAction = try await client.call(
                .get, "\(client.app)/users/me/topics/inbox/acl/SEND_MESSAGE_TO_TOPIC", token: ann.token)
            #expect(perAction.json == [["userID": .string(ann.id)]])
            #expect(
                try await client.call(
                    .get, "\(client.app)/users/me/topics/inbox/acl/SEND_MESSAGE_TO_TOPIC/UserID:\(ann.id)",
                    token: ann.token
                ).status == .ok)
            #expect(
                try await client.call(
                    .get, "\(client.app)/users/me/topics/inbox/acl/SEND_MESSAGE_TO_TOPIC/UserID:nobody",
                    token: ann.token
                ).errorCode == "ACL_NOT_FOUND")

            let detailed = try await client.call(
                .get, "\(client.app)/groups/\(groupID)/topics/chat/acl?detailed=true", token: ann.token)
            let rows = detailed.object["entries"]?.arrayValue?.compactMap(\.objectValue) ?? []
            #expect(rows.count == 4)
            #expect(rows.allSatisfy { $0["default"] == true })
            #expect(rows.filter { $0["removable"] == true }.count == 2)
        }
    }

    @Test(
        "Adding an existing entry is ACL_ALREADY_EXISTS; removing a missing one ACL_NOT_FOUND; protected entries stay")
    func entryErrors() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let ann = try await client.pseudoUser()
            let bob = try await client.pseudoUser()
            let groupID = try await client.group(owner: ann.token, members: [bob.id])
            let topic = "\(client.app)/groups/\(groupID)/topics/chat"
            #expect(try await client.call(.put, topic, token: bob.token).status == .noContent)

            #expect(
                try await client.call(.put, "\(topic)/acl/SEND_MESSAGE_TO_TOPIC/GroupID:\(groupID)", token: bob.token)
                    .errorCode == "ACL_ALREADY_EXISTS")
            #expect(
                try await client.call(.delete, "\(topic)/acl/SEND_MESSAGE_TO_TOPIC/UserID:nobody", token: bob.token)
                    .errorCode == "ACL_NOT_FOUND")
            let creator = try await client.call(
                .delete, "\(topic)/acl/SEND_MESSAGE_TO_TOPIC/UserID:\(bob.id)", token: bob.token)
            #expect(creator.status == .conflict)
            #expect(creator.errorCode == "ACL_ENTRY_NOT_REMOVABLE")
            #expect(
                try await client.call(.delete, "\(topic)/acl/SUBSCRIBE_TO_TOPIC/UserID:\(bob.id)", token: ann.token)
                    .errorCode == "ACL_ENTRY_NOT_REMOVABLE")
            #expect(
                try await client.call(.put, "\(topic)/acl/PUBLISH/UserID:\(bob.id)", token: bob.token).status
                    == .notFound)
            #expect(
                try await client.call(.put, "\(topic)/acl/SEND_MESSAGE_TO_TOPIC/Robot:x", token: bob.token).errorCode
                    == "INVALID_INPUT_DATA")

            // The group's entry can go: the topic becomes an announcement channel of its creator.
            #expect(
                try await client.call(
                    .delete, "\(topic)/acl/SEND_MESSAGE_TO_TOPIC/GroupID:\(groupID)", token: bob.token
                ).status == .noContent)
            #expect(try await client.send(topic, token: ann.token).status == .forbidden)
            #expect(try await client.send(topic, token: bob.token).status == .created)
        }
    }

    @Test("Only the admin, the scope owner and the creator list or change a topic's ACL")
    func whoManages() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let creator = try await client.pseudoUser()
            let member = try await client.pseudoUser()
            let groupID = try await client.group(owner: owner.token, members: [creator.id, member.id])
            let topic = "\(client.app)/groups/\(groupID)/topics/chat"
            #expect(try await client.call(.put, topic, token: creator.token).status == .noContent)
            let admin = try await client.adminToken()
            for token in [owner.token, creator.token, admin] {
                #expect(try await client.call(.get, "\(topic)/acl", token: token).status == .ok)
            }
            #expect(try await client.call(.get, "\(topic)/acl", token: member.token).status == .forbidden)
            #expect(
                try await client.call(
                    .put, "\(topic)/acl/SEND_MESSAGE_TO_TOPIC/UserID:\(member.id)", token: member.token
                ).status == .forbidden)
            #expect(try await client.call(.delete, topic, token: member.token).status == .forbidden)
            #expect(
                try await client.call(
                    .put, "\(topic)/acl/SEND_MESSAGE_TO_TOPIC/UserID:\(member.id)", token: owner.token
                ).status == .noContent)
        }
    }

    @Test("A batch applies all its changes or none, and says which one failed")
    func batch() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let ann = try await client.pseudoUser()
            let bob = try await client.pseudoUser()
            let carol = try await client.pseudoUser()
            let topic = "\(client.app)/users/\(ann.id)/topics/inbox"
            #expect(try await client.call(.put, topic, token: ann.token).status == .noContent)

            let failing = try await client.call(
                .post, "\(topic)/acl", token: ann.token, contentType: "application/json",
                json: [
                    "changes": [
                        ["change": "grant", "action": "SEND_MESSAGE_TO_TOPIC", "subject": .string("UserID:\(bob.id)")],
                        [
                            "change": "revoke", "action": "SEND_MESSAGE_TO_TOPIC",
                            "subject": .string("UserID:\(carol.id)"),
                        ],
                    ]
                ])
            #expect(failing.status == .notFound)
            #expect(failing.errorCode == "ACL_NOT_FOUND")
            #expect(failing.object["failedChangeIndex"] == 1)
            #expect(try await client.send(topic, token: bob.token).status == .forbidden)

            let protected = try await client.call(
                .post, "\(topic)/acl", token: ann.token, contentType: "application/json",
                json: [
                    "changes": [
                        ["change": "grant", "action": "SEND_MESSAGE_TO_TOPIC", "subject": .string("UserID:\(bob.id)")],
                        [
                            "change": "revoke", "action": "SEND_MESSAGE_TO_TOPIC",
                            "subject": .string("UserID:\(ann.id)"),
                        ],
                    ]
                ])
            #expect(protected.errorCode == "ACL_ENTRY_NOT_REMOVABLE")
            #expect(protected.object["failedChangeIndex"] == 1)
            #expect(try await client.send(topic, token: bob.token).status == .forbidden)

            let malformed = try await client.call(
                .post, "\(topic)/acl", token: ann.token, contentType: "application/json",
                json: [
                    "changes": [
                        ["change": "grant", "action": "SEND_MESSAGE_TO_TOPIC", "subject": .string("UserID:\(bob.id)")],
                        ["change": "maybe"],
                    ]
                ])
            #expect(malformed.errorCode == "INVALID_INPUT_DATA")
            #expect(malformed.object["failedChangeIndex"] == 1)

            let applied = try await client.call(
                .post, "\(topic)/acl", token: ann.token, contentType: "application/json",
                json: [
                    "changes": [
                        ["change": "grant", "action": "SEND_MESSAGE_TO_TOPIC", "subject": .string("UserID:\(bob.id)")],
                        ["change": "grant", "action": "SUBSCRIBE_TO_TOPIC", "subject": .string("UserID:\(carol.id)")],
                    ]
                ])
            #expect(applied.status == .ok)
            #expect(try await client.send(topic, token: bob.token).status == .created)

            let audit = try await client.call(.get, "\(topic)/acl-audit", token: ann.token)
            let records = audit.object["records"]?.arrayValue?.compactMap(\.objectValue) ?? []
            #expect(records.count == 2)
            #expect(records.first?["actor"] == .string("user:\(ann.id)"))
            #expect(records.first?["change"] == "grant")
            #expect(
                records.first?["before"]?.arrayValue?.contains(.string("SEND_MESSAGE_TO_TOPIC/UserID:\(bob.id)"))
                    == false)
            #expect(
                records.first?["after"]?.arrayValue?.contains(.string("SEND_MESSAGE_TO_TOPIC/UserID:\(bob.id)")) == true
            )
            #expect(try await client.call(.get, "\(topic)/acl-audit", token: bob.token).status == .forbidden)
        }
    }

    @Test("Subscriptions: self only (or an owned thing), duplicates, checks, and SUBSCRIBE_TO_TOPIC required")
    func subscriptions() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let admin = try await client.adminToken()
            let ann = try await client.pseudoUser()
            let bob = try await client.pseudoUser()
            let topic = "\(client.app)/topics/news"
            #expect(try await client.call(.put, topic, token: admin).status == .noContent)
            let mine = "\(topic)/push/subscriptions/users/\(ann.id)"
            #expect(try await client.call(.put, mine, token: ann.token).status == .noContent)
            let again = try await client.call(.put, mine, token: ann.token)
            #expect(again.status == .conflict)
            #expect(again.errorCode == "PUSH_SUBSCRIPTION_ALREADY_EXISTS")
            #expect(try await client.call(.get, mine, token: ann.token).status == .noContent)
            #expect(
                try await client.call(.put, "\(topic)/push/subscriptions/users/\(bob.id)", token: ann.token).status
                    == .forbidden)
            #expect(try await client.call(.delete, mine, token: ann.token).status == .noContent)
            let gone = try await client.call(.get, mine, token: ann.token)
            #expect(gone.status == .notFound)
            #expect(gone.errorCode == "PUSH_SUBSCRIPTION_NOT_FOUND")
            #expect(try await client.call(.delete, mine, token: ann.token).errorCode == "PUSH_SUBSCRIPTION_NOT_FOUND")
            #expect(
                try await client.call(
                    .get, "\(client.app)/topics/nope/push/subscriptions/users/\(ann.id)", token: ann.token
                ).errorCode == "TOPIC_NOT_FOUND")

            // A user topic of Ann: Bob has no SUBSCRIBE_TO_TOPIC.
            let inbox = "\(client.app)/users/me/topics/inbox"
            #expect(try await client.call(.put, inbox, token: ann.token).status == .noContent)
            let denied = try await client.call(
                .put, "\(client.app)/users/\(ann.id)/topics/inbox/push/subscriptions/users/\(bob.id)", token: bob.token)
            #expect(denied.status == .forbidden)
            #expect(denied.string("missingPermission") == "SUBSCRIBE_TO_TOPIC")

            // Things: the thing itself (POST …/things), or a user for a thing it owns.
            let thing = try await client.thing("lamp-1")
            #expect(
                try await client.call(.post, "\(topic)/push/subscriptions/things", token: thing.token).status
                    == .noContent)
            #expect(
                try await client.call(.post, "\(topic)/push/subscriptions/things", token: ann.token).status
                    == .forbidden)
            let other = try await client.thing("lamp-2")
            let thingPath = "\(topic)/push/subscriptions/things/\(other.id)"
            #expect(try await client.call(.put, thingPath, token: ann.token).status == .forbidden)
            #expect(
                try await client.call(
                    .put, "\(client.app)/things/\(other.id)/ownership/user:\(ann.id)", token: other.token
                ).status == .noContent)
            #expect(try await client.call(.put, thingPath, token: ann.token).status == .noContent)
        }
    }

    @Test("Revoking access removes a subscriber from every later fan-out, though its subscription row stays")
    func revocationStopsFanOut() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let ann = try await client.pseudoUser()
            let bob = try await client.pseudoUser()
            let carol = try await client.pseudoUser()
            let groupID = try await client.group(owner: ann.token, members: [bob.id, carol.id])
            let topic = "\(client.app)/groups/\(groupID)/topics/chat"
            #expect(try await client.call(.put, topic, token: ann.token).status == .noContent)
            for user in [bob, carol] {
                #expect(
                    try await client.call(.put, "\(topic)/push/subscriptions/users/\(user.id)", token: user.token)
                        .status == .noContent)
            }
            #expect(try await client.send(topic, token: ann.token).status == .created)
            #expect(client.lastRecipients == [.user(UserID(bob.id)), .user(UserID(carol.id))].sorted())

            // Carol leaves the group: her subscription row stays, her access does not.
            #expect(
                try await client.call(
                    .delete, "\(client.app)/groups/\(groupID)/members/\(carol.id)", token: carol.token
                ).status == .noContent)
            #expect(try await client.send(topic, token: ann.token).status == .created)
            #expect(client.lastRecipients == [.user(UserID(bob.id))])

            // The group's SUBSCRIBE entry is removed: Bob goes too.
            #expect(
                try await client.call(.delete, "\(topic)/acl/SUBSCRIBE_TO_TOPIC/GroupID:\(groupID)", token: ann.token)
                    .status == .noContent)
            #expect(try await client.send(topic, token: ann.token).status == .created)
            #expect(client.lastRecipients == [])
        }
    }

    @Test("App scope: only the admin creates and sends; any authenticated user subscribes")
    func appScope() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let admin = try await client.adminToken()
            let ann = try await client.pseudoUser()
            let topic = "\(client.app)/topics/news"
            #expect(try await client.call(.put, topic, token: ann.token).status == .forbidden)
            #expect(try await client.call(.put, topic).status == .unauthorized)
            #expect(try await client.call(.put, topic, token: admin).status == .noContent)
            #expect(
                try await client.call(.put, "\(topic)/push/subscriptions/users/\(ann.id)", token: ann.token).status
                    == .noContent)
            #expect(try await client.send(topic, token: ann.token).status == .forbidden)
            let anonymous = try await client.send(topic, token: nil)
            #expect(anonymous.status == .unauthorized)
            #expect(try await client.send(topic, token: admin).status == .created)
            #expect(client.lastRecipients == [.user(UserID(ann.id))])
            let payload = try #require(
                server.dispatcher.messages.last.flatMap { try? JSONParser.parse($0.payload) }?.objectValue)
            #expect(payload["sender"] == nil)
            #expect(payload["objectScopeType"] == "APP")
        }
    }

    @Test("Thing scope: the thing and its owners use it; others do not")
    func thingScope() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let thing = try await client.thing("lamp-1")
            let owner = try await client.pseudoUser()
            let stranger = try await client.pseudoUser()
            #expect(
                try await client.call(
                    .put, "\(client.app)/things/\(thing.id)/ownership/user:\(owner.id)", token: thing.token
                ).status == .noContent)
            let topic = "\(client.app)/things/VENDOR_THING_ID:lamp-1/topics/alerts"
            #expect(try await client.call(.put, topic, token: stranger.token).status == .forbidden)
            #expect(try await client.call(.put, topic, token: thing.token).status == .noContent)
            #expect(
                try await client.call(.put, "\(topic)/push/subscriptions/users/\(owner.id)", token: owner.token).status
                    == .noContent)
            #expect(
                try await client.call(.put, "\(topic)/push/subscriptions/users/\(stranger.id)", token: stranger.token)
                    .status == .forbidden)
            #expect(try await client.send(topic, token: stranger.token).status == .forbidden)
            #expect(try await client.send(topic, token: thing.token).status == .created)
            #expect(client.lastRecipients == [.user(UserID(owner.id))])
            // The owner gives the thing away: it no longer receives.
            #expect(
                try await client.call(
                    .delete, "\(client.app)/things/\(thing.id)/ownership/user:\(owner.id)", token: thing.token
                ).status == .noContent)
            #expect(try await client.send(topic, token: thing.token).status == .created)
            #expect(client.lastRecipients == [])
        }
    }

    @Test("Listing with pagination, HEAD for existence, deletion, and deletion with the scope")
    func lifecycle() async throws {
        // More topics than one page, and than the default quota of one user: no quota here.
        var abuse = AbuseControls()
        abuse.topicsPerPrincipal = nil
        let server = try await TestServer.make(abuse: abuse)
        try await server.run { client in
            let ann = try await client.pseudoUser()
            let stranger = try await client.pseudoUser()
            let groupID = try await client.group(owner: ann.token)
            let base = "\(client.app)/groups/\(groupID)/topics"
            for index in 0..<105 {
                #expect(
                    try await client.call(.put, "\(base)/t\(String(format: "%03d", index))", token: ann.token).status
                        == .noContent)
            }
            let first = try await client.call(.get, base, token: ann.token)
            #expect(first.object["topics"]?.arrayValue?.count == 100)
            let key = try #require(first.string("paginationKey"))
            let second = try await client.call(.get, "\(base)?paginationKey=\(key)", token: ann.token)
            #expect(second.object["topics"]?.arrayValue?.count == 5)
            #expect(second.string("paginationKey") == nil)
            #expect(try await client.call(.get, base, token: stranger.token).status == .forbidden)

            #expect(try await client.call(.head, "\(base)/t000", token: ann.token).status == .noContent)
            #expect(try await client.call(.head, "\(base)/nope", token: ann.token).status == .notFound)
            #expect(try await client.call(.delete, "\(base)/t000", token: ann.token).status == .noContent)
            #expect(try await client.call(.delete, "\(base)/t000", token: ann.token).errorCode == "TOPIC_NOT_FOUND")
            #expect(
                try await client.call(.put, "\(base)/bad%20name", token: ann.token).errorCode == "INVALID_INPUT_DATA")

            #expect(
                try await client.call(.delete, "\(client.app)/groups/\(groupID)", token: ann.token).status == .noContent
            )
            let admin = try await client.adminToken()
            #expect(try await client.call(.get, "\(base)/t001/acl", token: admin).errorCode == "GROUP_NOT_FOUND")
            #expect(
                try await server.store.topics(
                    appID: server.app.id, scope: .group(GroupID(groupID)), after: nil, limit: 10
                ).isEmpty)
        }
    }

    @Test("Bad send bodies are INVALID_INPUT_DATA; a send to a missing topic is TOPIC_NOT_FOUND")
    func badSends() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let ann = try await client.pseudoUser()
            let topic = "\(client.app)/users/me/topics/inbox"
            #expect(try await client.call(.put, topic, token: ann.token).status == .noContent)
            for body in [#"{}"#, #"{"data":{"a":{"b":1}}}"#, #"{"data":{},"gcm":{"enabled":"yes"}}"#, "[]"] {
                let reply = try await client.call(
                    .post, "\(topic)/push/messages", token: ann.token, contentType: "application/json", body: body)
                #expect(reply.status == .badRequest, "\(body)")
            }
            #expect(
                try await client.send("\(client.app)/users/me/topics/none", token: ann.token).errorCode
                    == "TOPIC_NOT_FOUND")
        }
    }

    @Test("The admin asks why: the deciding entry, or that none grants it")
    func explain() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let ann = try await client.pseudoUser()
            let bob = try await client.pseudoUser()
            let groupID = try await client.group(owner: ann.token, members: [bob.id])
            let topic = "\(client.app)/groups/\(groupID)/topics/chat"
            #expect(try await client.call(.put, topic, token: ann.token).status == .noContent)
            let admin = try await client.adminToken()
            let member = try await client.call(
                .get, "\(topic)/acl-explain?principal=user:\(bob.id)&action=SEND_MESSAGE_TO_TOPIC", token: admin)
            #expect(member.object["allowed"] == true)
            #expect(member.string("rule") == "group_entry")
            #expect(member.string("reason")?.contains("GroupID:\(groupID)") == true)
            let stranger = try await client.call(
                .get, "\(topic)/acl-explain?principal=user:nobody&action=SUBSCRIBE_TO_TOPIC", token: admin)
            #expect(stranger.object["allowed"] == false)
            #expect(stranger.string("rule") == "no_entry")
            #expect(
                try await client.call(
                    .get, "\(topic)/acl-explain?principal=robot&action=SUBSCRIBE_TO_TOPIC", token: admin
                ).errorCode == "INVALID_INPUT_DATA")
            #expect(
                try await client.call(
                    .get, "\(topic)/acl-explain?principal=user:x&action=SUBSCRIBE_TO_TOPIC", token: bob.token
                ).status == .forbidden)
        }
    }
}
