import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore
import TopicGateServer

/// The admin endpoints the console is built on: who can, a batch previewed, subscribers, topic
/// search, the overview, and the console's own files.
@Suite("Operator endpoints over HTTP")
struct OperatorRoutesTests {
    @Test("Who can: the principals AccessPolicy lets in, groups expanded, thing owners by rule; admin only")
    func whoCan() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let ann = try await client.normalUser("ann")
            let bob = try await client.pseudoUser()
            let eve = try await client.normalUser("eve")
            let topic = try await client.groupTopic(owner: ann.token, members: [bob.id])
            let admin = try await client.adminToken()

            let subscribers = try await client.call(
                .get, "\(topic)/acl-who-can?action=SUBSCRIBE_TO_TOPIC", token: admin
            )
            .expect(.ok)
            let admitted = Self.byPrincipal(subscribers)
            #expect(admitted.keys.sorted() == ["user:\(ann.id)", "user:\(bob.id)"].sorted())
            #expect(admitted["user:\(ann.id)"]?["name"] == "ann")
            #expect(
                admitted["user:\(bob.id)"]?["rule"] == "group_entry" || admitted["user:\(bob.id)"]?["rule"] == "entry")
            #expect(subscribers.object["anyAuthenticatedUser"] == false)
            #expect(subscribers.object["anonymous"] == false)

            try await client.call(.put, "\(topic)/acl/SEND_MESSAGE_TO_TOPIC/UserID:\(eve.id)", token: ann.token)
                .expect(.noContent)
            let senders = Self.byPrincipal(
                try await client.call(.get, "\(topic)/acl-who-can?action=SEND_MESSAGE_TO_TOPIC", token: admin))
            #expect(senders["user:\(eve.id)"]?["rule"] == "entry")
            #expect(senders["user:\(eve.id)"]?["name"] == "eve")
            // Eve may send, not subscribe: who can subscribe still leaves her out.
            #expect(
                Self.byPrincipal(
                    try await client.call(.get, "\(topic)/acl-who-can?action=SUBSCRIBE_TO_TOPIC", token: admin)
                )["user:\(eve.id)"] == nil)

            // An app topic: every authenticated user subscribes by rule.
            try await client.call(.put, "\(client.app)/topics/news", token: admin).expect(.noContent)
            let everyone = try await client.call(
                .get, "\(client.app)/topics/news/acl-who-can?action=SUBSCRIBE_TO_TOPIC", token: admin)
            #expect(everyone.object["anyAuthenticatedUser"] == true)

            // A thing's topic: its owner passes by the owner rule.
            let thing = try await client.thing("lamp-1")
            try await client.call(.put, "\(client.app)/things/\(thing.id)/ownership/user:\(eve.id)", token: thing.token)
                .expect(.noContent)
            let thingTopic = "\(client.app)/things/\(thing.id)/topics/status"
            try await client.call(.put, thingTopic, token: thing.token).expect(.noContent)
            let thingReaders = Self.byPrincipal(
                try await client.call(.get, "\(thingTopic)/acl-who-can?action=SUBSCRIBE_TO_TOPIC", token: admin))
            #expect(thingReaders["user:\(eve.id)"]?["rule"] == "thing_owner")
            #expect(thingReaders["thing:\(thing.id)"]?["name"] == "lamp-1")

            // Memberships are the admin's to see: the topic's own manager is refused.
            #expect(
                try await client.call(.get, "\(topic)/acl-who-can?action=SUBSCRIBE_TO_TOPIC", token: ann.token)
                    .status == .forbidden)
            #expect(
                try await client.call(.get, "\(topic)/acl-who-can?action=READ", token: admin).errorCode
                    == "INVALID_INPUT_DATA")
        }
    }

    @Test("A batch previewed with dryRun shows the entries after it and writes nothing; refusals are the same")
    func preview() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let ann = try await client.pseudoUser()
            let eve = try await client.pseudoUser()
            let topic = try await client.groupTopic(owner: ann.token, members: [])
            let before = try await client.call(.get, "\(topic)/acl", token: ann.token).expect(.ok).json
            let grantEve: JSONValue = [
                "change": "grant", "action": "SEND_MESSAGE_TO_TOPIC", "subject": .string("UserID:\(eve.id)"),
            ]
            let grant: JSONValue = ["changes": [grantEve]]
            let preview = try await client.call(.post, "\(topic)/acl?dryRun=true", token: ann.token, json: grant)
                .expect(.ok)
            #expect(preview.object["dryRun"] == true)
            #expect(
                preview.object["entries"]?.arrayValue?.contains(.string("SEND_MESSAGE_TO_TOPIC/UserID:\(eve.id)"))
                    == true)
            // Nothing was written: the ACL, the audit trail and Eve's send are as before.
            #expect(try await client.call(.get, "\(topic)/acl", token: ann.token).json == before)
            #expect(
                try await client.call(.get, "\(topic)/acl-audit", token: ann.token).object["records"] == .array([]))
            #expect(try await client.send(topic, token: eve.token).status == .forbidden)

            let protected: JSONValue = [
                "changes": [
                    ["change": "revoke", "action": "SEND_MESSAGE_TO_TOPIC", "subject": .string("UserID:\(ann.id)")]
                ]
            ]
            let refused = try await client.call(
                .post, "\(topic)/acl?dryRun=true", token: ann.token, json: protected)
            #expect(refused.errorCode == "ACL_ENTRY_NOT_REMOVABLE")
            #expect(refused.object["failedChangeIndex"] == 0)
            let twice: JSONValue = ["changes": [grantEve, grantEve]]
            #expect(
                try await client.call(.post, "\(topic)/acl?dryRun=true", token: ann.token, json: twice).errorCode
                    == "ACL_ALREADY_EXISTS")
            #expect(
                try await client.call(.post, "\(topic)/acl?dryRun=true", token: eve.token, json: grant).status
                    == .forbidden)
        }
    }

    @Test("Subscribers are listed with whether a send still reaches them")
    func subscribers() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let ann = try await client.pseudoUser()
            let bob = try await client.normalUser("bob")
            let eve = try await client.pseudoUser()
            let groupID = try await client.group(owner: ann.token, members: [bob.id])
            let topic = "\(client.app)/groups/\(groupID)/topics/chat"
            try await client.call(.put, topic, token: ann.token).expect(.noContent)
            try await client.subscribe(topic, userID: ann.id, token: ann.token)
            try await client.subscribe(topic, userID: bob.id, token: bob.token)
            // Bob leaves the group: his subscription stays, but sends no longer reach him.
            try await client.call(.delete, "\(client.app)/groups/\(groupID)/members/\(bob.id)", token: ann.token)
                .expect(.noContent)
            let listed = try await client.call(.get, "\(topic)/push/subscriptions", token: ann.token).expect(.ok)
            let rows = Self.byPrincipal(listed, "subscribers")
            #expect(rows["user:\(ann.id)"]?["receives"] == true)
            #expect(rows["user:\(bob.id)"]?["receives"] == false)
            #expect(rows["user:\(bob.id)"]?["name"] == "bob")
            #expect(rows.count == 2)
            #expect(try await client.call(.get, "\(topic)/push/subscriptions", token: eve.token).status == .forbidden)
        }
    }

    @Test("Topic search finds topics of every scope by name, owner's login name, group name and vendor thing ID")
    func search() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let admin = try await client.adminToken()
            let eve = try await client.normalUser("eve")
            try await client.call(.put, "\(client.app)/users/\(eve.id)/topics/inbox", token: eve.token)
                .expect(.noContent)
            let groupID = try await client.group(owner: eve.token, name: "night-shift")
            try await client.call(.put, "\(client.app)/groups/\(groupID)/topics/rota", token: eve.token)
                .expect(.noContent)
            let thing = try await client.thing("lamp-42")
            try await client.call(.put, "\(client.app)/things/\(thing.id)/topics/state", token: thing.token)
                .expect(.noContent)
            try await client.call(.put, "\(client.app)/topics/release_notes", token: admin).expect(.noContent)

            func found(_ query: String) async throws -> [String] {
                let reply = try await client.call(
                    .get, "\(client.app)/topic-search?q=\(query)", token: admin
                ).expect(.ok)
                return (reply.object["topics"]?.arrayValue ?? []).compactMap {
                    guard let object = $0.objectValue, let scope = object["scope"]?.stringValue,
                        let name = object["topicID"]?.stringValue
                    else { return nil }
                    return "\(scope)/\(name)"
                }
            }
            #expect(try await found("INBOX") == ["user/\(eve.id)/inbox"])
            // Eve's login name finds her own topic and the one she created in her group.
            #expect(try await found("eve") == ["group/\(groupID)/rota", "user/\(eve.id)/inbox"])
            #expect(try await found("night") == ["group/\(groupID)/rota"])
            #expect(try await found("lamp-4") == ["thing/\(thing.id)/state"])
            // `_` and `%` are themselves, not wildcards.
            #expect(try await found("r_ta") == [])
            #expect(try await found("e_not") == ["app/release_notes"])
            #expect(try await found("%25") == [])
            #expect(try await found("").count == 4)
            let entry = try #require(
                try await client.call(.get, "\(client.app)/topic-search?q=inbox", token: admin).object["topics"]?
                    .arrayValue?.first?.objectValue)
            #expect(entry["scopeName"] == "eve")
            #expect(entry["creatorName"] == "eve")
            #expect(
                try await client.call(.get, "\(client.app)/topic-search?q=eve", token: eve.token).status
                    == .forbidden)
        }
    }

    @Test("Principal search finds users by login name, email and ID, groups by name, things by vendor thing ID")
    func principalSearch() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let admin = try await client.adminToken()
            let eve = try await client.normalUser("eve")
            let pseudo = try await client.pseudoUser()
            let groupID = try await client.group(owner: eve.token, name: "Eve's crew")
            let thing = try await client.thing("eve-lamp")
            func found(_ query: String) async throws -> [String: [String: JSONValue]] {
                let reply = try await client.call(.get, "\(client.app)/principal-search?q=\(query)", token: admin)
                    .expect(.ok)
                return Self.byPrincipal(reply)
            }
            let eves = try await found("EVE")
            #expect(eves.keys.sorted() == ["group:\(groupID)", "thing:\(thing.id)", "user:\(eve.id)"].sorted())
            #expect(eves["user:\(eve.id)"]?["name"] == "eve")
            #expect(eves["group:\(groupID)"]?["name"] == "Eve's crew")
            #expect(eves["thing:\(thing.id)"]?["name"] == "eve-lamp")
            let byID = try await found(pseudo.id)
            #expect(byID["user:\(pseudo.id)"]?["detail"] == "pseudo user")
            #expect(try await found("nobody-at-all").isEmpty)
            #expect(
                try await client.call(.get, "\(client.app)/principal-search?q=eve", token: eve.token).status
                    == .forbidden)
        }
    }

    @Test("A principal's access: groups, owned things, devices, and the topics it may subscribe or send to")
    func principalAccess() async throws {
        let server = try await TestServer.make(push: true)
        try await server.run { client in
            let admin = try await client.adminToken()
            let ann = try await client.normalUser("ann")
            let eve = try await client.normalUser("eve")
            let groupID = try await client.group(owner: ann.token, members: [eve.id], name: "crew")
            try await client.call(.put, "\(client.app)/groups/\(groupID)/topics/rota", token: ann.token)
                .expect(.noContent)
            try await client.call(.put, "\(client.app)/users/\(ann.id)/topics/inbox", token: ann.token)
                .expect(.noContent)
            try await client.call(.put, "\(client.app)/topics/news", token: admin).expect(.noContent)
            let thing = try await client.thing("lamp-7")
            try await client.call(
                .put, "\(client.app)/things/\(thing.id)/ownership/group:\(groupID)", token: thing.token
            )
            .expect(.noContent)
            let installationID = try await client.call(
                .post, "\(client.app)/installations", token: eve.token,
                contentType: "application/vnd.kii.InstallationCreationRequest+json", body: #"{"deviceType":"MQTT"}"#
            ).expect(.created).require("installationID")
            // A deleted one is listed while the broker still refuses its credentials, marked so.
            let deleted = try await client.call(
                .post, "\(client.app)/installations", token: eve.token,
                contentType: "application/vnd.kii.InstallationCreationRequest+json", body: #"{"deviceType":"MQTT"}"#
            ).expect(.created).require("installationID")
            _ = try await client.call(.get, "\(client.app)/installations/\(deleted)/mqtt-endpoint", token: eve.token)
                .expect(.ok)
            try await client.call(.delete, "\(client.app)/installations/\(deleted)", token: eve.token)
                .expect(.noContent)

            let access = try await client.call(.get, "\(client.app)/principals/user:\(eve.id)/access", token: admin)
                .expect(.ok)
            #expect(access.object["name"] == "eve")
            #expect(access.object["disabled"] == false)
            let groups = access.object["groups"]?.arrayValue?.compactMap(\.objectValue) ?? []
            #expect(groups.map { $0["groupID"] } == [.string(groupID)])
            #expect(groups.first?["owner"] == false)
            #expect(access.object["ownedThings"] == .array([.string(thing.id)]))
            let devices = access.object["installations"]?.arrayValue?.compactMap(\.objectValue) ?? []
            #expect(devices.map { $0["installationID"] } == [.string(installationID), .string(deleted)])
            #expect(devices.first?["revokedAt"] == nil)
            #expect(devices.last?["revokedAt"]?.intValue != nil)
            #expect(devices.allSatisfy { $0["online"] == false })
            func topics(_ key: String) -> [String] {
                (access.object[key]?.arrayValue ?? []).compactMap { row in
                    row.objectValue.map { "\($0["scope"]?.stringValue ?? "")/\($0["topicID"]?.stringValue ?? "")" }
                }.sorted()
            }
            // Eve reads the app topic (every authenticated user) and the group's; not Ann's inbox.
            #expect(topics("maySubscribe") == ["app/news", "group/\(groupID)/rota"])
            #expect(topics("maySend") == ["group/\(groupID)/rota"])
            #expect(access.object["truncated"] == false)
            // A user is no end node: the answer names both members, as null.
            #expect(access.object["kind"] == "user")
            #expect(access.object["layoutPosition"] == .null)
            #expect(access.object["gateway"] == .null)

            let thingAccess = try await client.call(
                .get, "\(client.app)/principals/thing:\(thing.id)/access", token: admin
            ).expect(.ok)
            #expect(thingAccess.object["owners"] == .array([.string("group:\(groupID)")]))
            #expect(thingAccess.object["name"] == "lamp-7")

            #expect(
                try await client.call(.get, "\(client.app)/principals/user:nobody/access", token: admin).errorCode
                    == "USER_NOT_FOUND")
            #expect(
                try await client.call(.get, "\(client.app)/principals/admin/access", token: admin).errorCode
                    == "INVALID_INPUT_DATA")
            #expect(
                try await client.call(.get, "\(client.app)/principals/user:\(eve.id)/access", token: eve.token)
                    .status == .forbidden)
        }
    }

    @Test("A group's page: owner first, members, the things it owns, its topics and the ACLs naming it; admin only")
    func groupPage() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let admin = try await client.adminToken()
            let ann = try await client.normalUser("ann")
            let bob = try await client.normalUser("bob")
            let eve = try await client.normalUser("eve")
            let groupID = try await client.group(owner: ann.token, members: [eve.id, bob.id], name: "crew")
            try await client.call(.put, "\(client.app)/groups/\(groupID)/topics/rota", token: ann.token)
                .expect(.noContent)
            try await client.call(.put, "\(client.app)/topics/news", token: admin).expect(.noContent)
            try await client.call(
                .put, "\(client.app)/topics/news/acl/SEND_MESSAGE_TO_TOPIC/GroupID:\(groupID)", token: admin
            ).expect(.noContent)
            try await client.call(.put, "\(client.app)/topics/quiet", token: admin).expect(.noContent)
            let thing = try await client.thing("lamp-8")
            try await client.call(
                .put, "\(client.app)/things/\(thing.id)/ownership/group:\(groupID)", token: thing.token
            ).expect(.noContent)

            let page = try await client.call(.get, "\(client.app)/principals/group:\(groupID)/access", token: admin)
                .expect(.ok)
            #expect(page.object["kind"] == "group")
            #expect(page.object["name"] == "crew")
            #expect(page.object["owner"] == .string("user:\(ann.id)"))
            #expect(page.object["memberCount"] == 3)
            let members = page.object["members"]?.arrayValue?.compactMap(\.objectValue) ?? []
            #expect(members.first?["principal"] == .string("user:\(ann.id)"))
            #expect(members.first?["owner"] == true)
            #expect(Set(members.compactMap { $0["name"]?.stringValue }) == ["ann", "bob", "eve"])
            #expect(page.object["ownedThings"] == .array([.string(thing.id)]))
            #expect(page.object["scopeTopics"] == [["scope": .string("group/\(groupID)"), "topicID": "rota"]])
            // The app topic whose ACL names the group, and the group's own topic (its default
            // entries); not the topic that does not name it.
            let namedIn = page.object["namedIn"]?.arrayValue ?? []
            #expect(namedIn.count == 2)
            #expect(namedIn.contains(["scope": "app", "topicID": "news", "actions": ["SEND_MESSAGE_TO_TOPIC"]]))
            #expect(
                namedIn.contains([
                    "scope": .string("group/\(groupID)"), "topicID": "rota",
                    "actions": ["SUBSCRIBE_TO_TOPIC", "SEND_MESSAGE_TO_TOPIC"],
                ]))
            #expect(
                try await client.call(.get, "\(client.app)/principals/group:nogroup/access", token: admin)
                    .errorCode == "GROUP_NOT_FOUND")
            #expect(
                try await client.call(.get, "\(client.app)/principals/group:\(groupID)/access", token: ann.token)
                    .status == .forbidden)
        }
    }

    @Test("The overview counts the app and this gateway's decisions; admin only")
    func overview() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let admin = try await client.adminToken()
            let ann = try await client.pseudoUser()
            _ = try await client.normalUser("bob")
            let eve = try await client.pseudoUser()
            let topic = try await client.groupTopic(owner: ann.token, members: [])
            _ = try await client.thing("lamp-1")
            #expect(try await client.send(topic, token: eve.token).status == .forbidden)
            #expect(try await client.send(topic, token: ann.token).status == .created)

            let overview = try await client.call(.get, "\(client.app)/overview", token: admin).expect(.ok)
            let counts = overview.object["counts"]?.objectValue ?? [:]
            #expect(counts["users"] == 3)
            #expect(counts["pseudoUsers"] == 2)
            #expect(counts["groups"] == 1)
            #expect(counts["things"] == 1)
            #expect(counts["topics"] == 1)
            #expect(counts["installations"] == 0)
            let gateway = overview.object["gateway"]?.objectValue ?? [:]
            #expect(gateway["sendsDenied"] == 1)
            #expect(gateway["sendsAllowed"] == 1)
            #expect(overview.object["outboxDepth"] != nil)
            #expect(overview.object["at"]?.intValue != nil)
            #expect(try await client.call(.get, "\(client.app)/overview", token: ann.token).status == .forbidden)
        }
    }

    @Test("The overview shows an app's admin only that app: its counts, sends, outbox and dead letters")
    func overviewOfOneAppOnly() async throws {
        let server = try await TestServer.make()
        let other = try await AppRegistry(store: server.store).create(name: "other")
        try await server.run { client in
            let ann = try await client.pseudoUser()
            let topic = try await client.groupTopic(owner: ann.token, members: [])
            #expect(try await client.send(topic, token: ann.token).status == .created)
            let otherApp = "/api/apps/\(other.app.id.rawValue)"
            let otherAdmin = try await client.call(
                .post, "\(otherApp)/oauth2/token",
                json: [
                    "grant_type": "client_credentials", "client_id": .string(other.app.clientID),
                    "client_secret": .string(other.clientSecret),
                ]
            ).expect(.ok).require("access_token")
            let overview = try await client.call(.get, "\(otherApp)/overview", token: otherAdmin).expect(.ok)
            #expect(overview.object["counts"]?.objectValue?["users"] == 0)
            #expect(overview.object["gateway"]?.objectValue?["sendsAllowed"] == 0)
            #expect(overview.object["outboxDepth"] == 0)
            #expect(overview.object["deadLetters"] == 0)
            #expect(overview.object["devicesOnlineAllApps"] == nil)
            let own = try await client.call(.get, "\(client.app)/overview", token: try await client.adminToken())
            #expect(own.object["gateway"]?.objectValue?["sendsAllowed"] == 1)
        }
    }

    @Test("The console's files are served with a strict Content-Security-Policy and no credentials")
    func consoleFiles() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let page = try await client.call(.get, "/console").expect(.ok)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            let policy = try #require(page.headers[.contentSecurityPolicy])
            #expect(policy.contains("default-src 'none'"))
            #expect(policy.contains("script-src 'self'"))
            #expect(!policy.contains("unsafe-inline"))
            #expect(policy.contains("frame-ancestors 'none'"))
            #expect(page.headers[.xContentTypeOptions] == "nosniff")
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(html.contains("<script type=\"module\" src=\"/console/console.js\"></script>"))
            // No inline script or style: the policy would refuse it.
            #expect(!html.contains("<script>") && !html.contains("style="))
            for file in [
                "console.js", "api.js", "dom.js", "status.js", "overview.js", "topics.js", "topic.js",
                "principals.js", "security.js",
            ] {
                let script = try await client.call(.get, "/console/\(file)").expect(.ok)
                #expect(script.headers[.contentType] == "text/javascript; charset=utf-8", "\(file)")
                #expect(script.headers[.contentSecurityPolicy] == policy)
                #expect(!String(decoding: script.body, as: UTF8.self).contains("innerHTML"), "\(file)")
            }
            #expect(
                try await client.call(.get, "/console/console.css").headers[.contentType] == "text/css; charset=utf-8")
            #expect(try await client.call(.get, "/console/secrets.json").errorCode == "NOT_FOUND")
            #expect(try await client.call(.get, "/console/..%2Fopenapi.json").status == .notFound)
        }
    }

    /// The rows under `key`, by their `principal`.
    static func byPrincipal(_ reply: APIReply, _ key: String = "principals") -> [String: [String: JSONValue]] {
        Dictionary(
            uniqueKeysWithValues: (reply.object[key]?.arrayValue ?? []).compactMap { row in
                row.objectValue.flatMap { object in object["principal"]?.stringValue.map { ($0, object) } }
            })
    }
}
