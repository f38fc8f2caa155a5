import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore
import TopicGateServer
import TopicGateStore

/// `topicgate acl …` against a live server process.
@Suite("topicgate acl against a live server")
struct ACLCommandTests {
    @Test("explain, grant, list, audit and revoke tell the README story")
    func story() async throws {
        let directory = TestFolder.url.appendingPathComponent("tg-cli-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try await openStore(configuration: ServerConfiguration(dataDirectory: directory))
        let credentials = try await AppRegistry(store: store).create(name: "cli")
        let appID = credentials.app.id.rawValue
        let environment = [
            "TOPICGATE_APP_ID": appID, "TOPICGATE_CLIENT_ID": credentials.app.clientID,
            "TOPICGATE_CLIENT_SECRET": credentials.clientSecret,
        ]
        let server = ServerProcess(dataDirectory: directory)
        try await server.start()

        let api = server.inApp(appID, clientID: credentials.app.clientID, clientSecret: credentials.clientSecret)
        let (ann, annToken) = try await api.pseudoUser()
        let (bob, _) = try await api.pseudoUser()
        let groupID = try await api.group(owner: annToken, members: [bob], name: "family")
        #expect(
            try await server.call(.put, "/api/apps/\(appID)/groups/\(groupID)/topics/chat", token: annToken).status
                == .noContent)
        let topic = "group/\(groupID)/chat"
        let outsider = "user:\(UUID().uuidString.lowercased())"
        let outsiderSubject = "UserID:" + outsider.dropFirst(5)

        let denied = try await server.runCLI(
            ["acl", "explain", "--principal", outsider, "--action", "SEND_MESSAGE_TO_TOPIC", topic],
            credentials: environment)
        #expect(denied.0 == 0)
        #expect(denied.1.contains("DENIED"))
        #expect(denied.1.contains("no entry grants SEND_MESSAGE_TO_TOPIC"))

        let member = try await server.runCLI(
            ["acl", "explain", "--principal", "user:\(bob)", "--action", "SEND_MESSAGE_TO_TOPIC", topic],
            credentials: environment)
        #expect(member.1.contains("ALLOWED"))
        #expect(member.1.contains("member of group \(groupID)"))

        let grant = try await server.runCLI(
            ["acl", "grant", "--action", "SEND_MESSAGE_TO_TOPIC", "--subject", String(outsiderSubject), topic],
            credentials: environment)
        #expect(grant.0 == 0)
        let allowed = try await server.runCLI(
            ["acl", "explain", "--principal", outsider, "--action", "SEND_MESSAGE_TO_TOPIC", topic],
            credentials: environment)
        #expect(allowed.1.contains("ALLOWED"))
        #expect(allowed.1.contains("granted entry SEND_MESSAGE_TO_TOPIC/\(outsiderSubject)"))

        let list = try await server.runCLI(["acl", "list", topic], credentials: environment)
        #expect(list.0 == 0)
        #expect(list.1.contains(String(outsiderSubject)))
        #expect(list.1.contains("GroupID:\(groupID)"))
        #expect(
            list.1.split(separator: "\n").contains {
                $0.contains("UserID:\(ann)") && $0.contains("default") && $0.hasSuffix("no")
            })

        let audit = try await server.runCLI(["acl", "audit", topic], credentials: environment)
        #expect(audit.1.contains("grant"))
        #expect(audit.1.contains("admin"))

        let protected = try await server.runCLI(
            ["acl", "revoke", "--action", "SEND_MESSAGE_TO_TOPIC", "--subject", "UserID:\(ann)", topic],
            credentials: environment)
        #expect(protected.0 != 0)
        #expect(protected.2.contains("ACL_ENTRY_NOT_REMOVABLE"))

        let revoke = try await server.runCLI(
            ["acl", "revoke", "--action", "SEND_MESSAGE_TO_TOPIC", "--subject", String(outsiderSubject), topic],
            credentials: environment)
        #expect(revoke.0 == 0)
        let deniedAgain = try await server.runCLI(
            ["acl", "explain", "--principal", outsider, "--action", "SEND_MESSAGE_TO_TOPIC", topic],
            credentials: environment)
        #expect(deniedAgain.1.contains("DENIED"))

        let badSecret = try await server.runCLI(
            ["acl", "list", topic], credentials: environment.merging(["TOPICGATE_CLIENT_SECRET": "wrong"]) { $1 })
        #expect(badSecret.0 != 0)
        try await server.stop(signal: SIGTERM)
    }

    @Test("who-can, subscribers, apply (with --dry-run), topics search and overview: the console's answers")
    func consoleParity() async throws {
        let directory = TestFolder.url.appendingPathComponent("tg-cli-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = ServerProcess(dataDirectory: directory)
        try await server.start()
        let appID = try server.printedValue("appID")
        let (clientID, clientSecret) = try server.adminCredentials()
        let environment = [
            "TOPICGATE_APP_ID": appID, "TOPICGATE_CLIENT_ID": clientID, "TOPICGATE_CLIENT_SECRET": clientSecret,
        ]
        let api = server.inApp(appID, clientID: clientID, clientSecret: clientSecret)
        let ann = try await api.normalUser("ann")
        let bob = try await api.normalUser("bob")
        let eve = try await api.normalUser("eve")
        let groupID = try await api.group(owner: ann.token, members: [bob.id], name: "night-shift")
        try await api.call(.put, "\(api.app)/groups/\(groupID)/topics/rota", token: ann.token).expect(.noContent)
        try await api.subscribe("\(api.app)/groups/\(groupID)/topics/rota", userID: bob.id, token: bob.token)
        let topic = "group/\(groupID)/rota"

        let readers = try await server.runCLI(
            ["acl", "who-can", "--action", "SUBSCRIBE_TO_TOPIC", topic], credentials: environment)
        #expect(readers.0 == 0)
        #expect(readers.1.contains("user:\(bob.id)  bob"))
        #expect(readers.1.contains("member of group \(groupID)"))
        #expect(!readers.1.contains("eve"))

        let subscribers = try await server.runCLI(["acl", "subscribers", topic], credentials: environment)
        #expect(subscribers.1.contains("user:\(bob.id)  bob"))

        let eveSends = "SEND_MESSAGE_TO_TOPIC/UserID:\(eve.id)"
        let preview = try await server.runCLI(
            ["acl", "apply", "--grant", eveSends, "--dry-run", topic], credentials: environment)
        #expect(preview.0 == 0)
        #expect(preview.1.contains("nothing changed"))
        #expect(preview.1.contains(eveSends))
        #expect(try await api.send("\(api.app)/groups/\(groupID)/topics/rota", token: eve.token).status == .forbidden)
        let applied = try await server.runCLI(
            ["acl", "apply", "--grant", eveSends, "--revoke", "SUBSCRIBE_TO_TOPIC/GroupID:\(groupID)", topic],
            credentials: environment)
        #expect(applied.0 == 0)
        #expect(try await api.send("\(api.app)/groups/\(groupID)/topics/rota", token: eve.token).status == .created)
        // All or nothing: a protected entry in the batch leaves everything as it was.
        let refused = try await server.runCLI(
            ["acl", "apply", "--revoke", eveSends, "--revoke", "SEND_MESSAGE_TO_TOPIC/UserID:\(ann.id)", topic],
            credentials: environment)
        #expect(refused.0 != 0)
        #expect(refused.2.contains("ACL_ENTRY_NOT_REMOVABLE"))
        #expect(try await api.send("\(api.app)/groups/\(groupID)/topics/rota", token: eve.token).status == .created)

        let found = try await server.runCLI(["topics", "search", "NIGHT"], credentials: environment)
        #expect(found.0 == 0)
        #expect(found.1.contains("group/\(groupID)/rota"))
        #expect(found.1.contains("ann"))
        let bobs = try await server.runCLI(["principals", "search", "bo"], credentials: environment)
        #expect(bobs.1.contains("user:\(bob.id)  bob"))
        let standing = try await server.runCLI(["principals", "show", "user:\(bob.id)"], credentials: environment)
        #expect(standing.0 == 0)
        #expect(standing.1.contains("member of group night-shift (\(groupID))"))
        #expect(standing.1.contains("may send to group/\(groupID)/rota"))
        #expect(!standing.1.contains("may subscribe to group/\(groupID)/rota"))
        let crew = try await server.runCLI(["principals", "show", "group:\(groupID)"], credentials: environment)
        #expect(crew.0 == 0)
        #expect(crew.1.contains("group:\(groupID) (night-shift): 2 members"))
        #expect(crew.1.contains("owner user:\(ann.id) (ann)"))
        #expect(crew.1.contains("has topic rota"))
        #expect(crew.1.contains("named in group/\(groupID)/rota: SEND_MESSAGE_TO_TOPIC"))
        let overview = try await server.runCLI(["topics", "overview"], credentials: environment)
        #expect(overview.1.split(separator: "\n").contains { $0.hasPrefix("users ") && $0.hasSuffix(" 3") })
        #expect(overview.1.split(separator: "\n").contains { $0.hasPrefix("topics ") && $0.hasSuffix(" 1") })
        try await server.stop(signal: SIGTERM)
    }
}
