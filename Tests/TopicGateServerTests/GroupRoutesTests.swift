import HTTPTypes
import TestSupport
import Testing
import TopicGateCore

@Suite("Groups over HTTP")
struct GroupRoutesTests {
    @Test("Create with members; unknown members are reported; members read, strangers are refused")
    func createAndRead() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let member = try await client.pseudoUser()
            let stranger = try await client.pseudoUser()
            let created = try await client.call(
                .post, "\(client.app)/groups", token: owner.token,
                contentType: "application/vnd.kii.GroupCreationRequest+json",
                json: ["name": "family", "owner": .string(owner.id), "members": [.string(member.id), "ghost"]])
            #expect(created.status == .created)
            #expect(created.object["notFoundUsers"] == ["ghost"])
            let groupID = try #require(created.string("groupID"))

            let read = try await client.call(.get, "\(client.app)/groups/\(groupID)", token: member.token)
            #expect(read.status == .ok)
            #expect(read.string("name") == "family")
            #expect(read.string("owner") == owner.id)
            let members = try await client.call(.get, "\(client.app)/groups/\(groupID)/members", token: member.token)
            let ids = Set(
                members.object["members"]?.arrayValue?.compactMap { $0.objectValue?["userID"]?.stringValue } ?? [])
            #expect(ids == [owner.id, member.id])

            let refused = try await client.call(.get, "\(client.app)/groups/\(groupID)", token: stranger.token)
            #expect(refused.status == .forbidden)
            #expect(refused.errorCode == "UNAUTHORIZED")
            let missing = try await client.call(.get, "\(client.app)/groups/nosuchgroup", token: owner.token)
            #expect(missing.status == .notFound)
            #expect(missing.errorCode == "GROUP_NOT_FOUND")
        }
    }

    @Test("Every answer writes % as \\u0025 (the JS SDK decodes bodies as URIs): a page of groups, the admin's search")
    func percentEscapedInAnswers() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let admin = try await client.adminToken()
            _ = try await client.group(owner: owner.token, name: "100% family")
            // A page of domain values (their own JSON form) and an operator's answer (Encodable).
            for (path, token) in [
                ("groups?owner=\(owner.id)", owner.token), ("principal-search?q=family", admin),
            ] {
                let reply = try await client.call(.get, "\(client.app)/\(path)", token: token).expect(.ok)
                #expect(reply.text.contains(#""name":"100\u0025 family""#), "\(path): \(reply.text)")
                #expect(!reply.text.contains("%"), "\(path)")
            }
        }
    }

    @Test("A user may not create a group for another user; things and anonymous callers may not create groups")
    func createRefusals() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let user = try await client.pseudoUser()
            let other = try await client.pseudoUser()
            let forOther = try await client.call(
                .post, "\(client.app)/groups", token: user.token, contentType: "application/json",
                json: ["name": "x", "owner": .string(other.id)])
            #expect(forOther.status == .forbidden)
            let anonymous = try await client.call(
                .post, "\(client.app)/groups", contentType: "application/json", body: #"{"name":"x"}"#)
            #expect(anonymous.status == .unauthorized)
            let thing = try await client.thing("group-maker")
            let byThing = try await client.call(
                .post, "\(client.app)/groups", token: thing.token, contentType: "application/json",
                body: #"{"name":"x"}"#)
            #expect(byThing.status == .forbidden)
            let noName = try await client.call(
                .post, "\(client.app)/groups", token: user.token, contentType: "application/json", body: #"{}"#)
            #expect(noName.errorCode == "INVALID_INPUT_DATA")
        }
    }

    @Test("Create with an ID; the same ID again is GROUP_ALREADY_EXISTS")
    func createWithID() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let first = try await client.call(
                .put, "\(client.app)/groups/team-1", token: owner.token, contentType: "application/json",
                json: ["name": "team", "owner": .string(owner.id)])
            #expect(first.status == .created)
            #expect(first.string("groupID") == "team-1")
            let again = try await client.call(
                .put, "\(client.app)/groups/team-1", token: owner.token, contentType: "application/json",
                json: ["name": "team", "owner": .string(owner.id)])
            #expect(again.status == .conflict)
            #expect(again.errorCode == "GROUP_ALREADY_EXISTS")
        }
    }

    @Test("The owner renames, adds and removes members, and hands the group over; members may leave")
    func manage() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let member = try await client.pseudoUser()
            let newcomer = try await client.pseudoUser()
            let groupID = try #require(
                try await client.call(
                    .post, "\(client.app)/groups", token: owner.token, contentType: "application/json",
                    json: ["name": "club", "members": [.string(member.id)]]
                ).string("groupID"))
            let group = "\(client.app)/groups/\(groupID)"

            #expect(
                try await client.call(.put, "\(group)/name", token: member.token, contentType: "text/plain", body: "x")
                    .status == .forbidden)
            #expect(
                try await client.call(
                    .put, "\(group)/name", token: owner.token, contentType: "text/plain", body: "book club"
                ).status == .noContent)
            #expect(try await client.call(.get, group, token: owner.token).string("name") == "book club")

            #expect(
                try await client.call(.put, "\(group)/members/\(newcomer.id)", token: member.token).status == .forbidden
            )
            #expect(
                try await client.call(.put, "\(group)/members/\(newcomer.id)", token: owner.token).status == .noContent)
            #expect(try await client.call(.get, group, token: newcomer.token).status == .ok)
            #expect(
                try await client.call(.put, "\(group)/members/nobody", token: owner.token).errorCode == "USER_NOT_FOUND"
            )

            // A member leaves on its own; removing it again is a 404.
            #expect(
                try await client.call(.delete, "\(group)/members/\(newcomer.id)", token: newcomer.token).status
                    == .noContent)
            #expect(try await client.call(.get, group, token: newcomer.token).status == .forbidden)
            #expect(
                try await client.call(.delete, "\(group)/members/\(newcomer.id)", token: owner.token).status
                    == .notFound)

            // The owner cannot leave before handing the group over.
            #expect(
                try await client.call(.delete, "\(group)/members/\(owner.id)", token: owner.token).errorCode
                    == "OPERATION_NOT_ALLOWED")
            let handOver = try await client.call(
                .put, "\(group)/owner", token: owner.token,
                contentType: "application/vnd.kii.GroupOwnerChangeRequest+json",
                json: ["owner": .string(member.id)])
            #expect(handOver.status == .noContent)
            #expect(try await client.call(.get, group, token: owner.token).string("owner") == member.id)
            #expect(
                try await client.call(.put, "\(group)/name", token: owner.token, contentType: "text/plain", body: "y")
                    .status == .forbidden)
            #expect(
                try await client.call(.delete, "\(group)/members/\(owner.id)", token: owner.token).status == .noContent)

            #expect(try await client.call(.delete, group, token: owner.token).status == .forbidden)
            #expect(try await client.call(.delete, group, token: member.token).status == .noContent)
            #expect(try await client.call(.get, group, token: member.token).errorCode == "GROUP_NOT_FOUND")
        }
    }

    @Test("A user lists the groups it owns and belongs to; not another user's")
    func listUserGroups() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let member = try await client.pseudoUser()
            for name in ["a", "b"] {
                _ = try await client.call(
                    .post, "\(client.app)/groups", token: owner.token, contentType: "application/json",
                    json: ["name": .string(name), "members": [.string(member.id)]])
            }
            let owned = try await client.call(.get, "\(client.app)/groups?owner=\(owner.id)", token: owner.token)
            #expect(owned.object["groups"]?.arrayValue?.count == 2)
            let memberOf = try await client.call(
                .get, "\(client.app)/groups?is_member=\(member.id)", token: member.token)
            #expect(memberOf.object["groups"]?.arrayValue?.count == 2)
            let ownedByMember = try await client.call(
                .get, "\(client.app)/groups?owner=\(member.id)", token: member.token)
            #expect(ownedByMember.object["groups"]?.arrayValue?.count == 0)
            let snooping = try await client.call(.get, "\(client.app)/groups?owner=\(owner.id)", token: member.token)
            #expect(snooping.status == .forbidden)
            let noQuery = try await client.call(.get, "\(client.app)/groups", token: member.token)
            #expect(noQuery.errorCode == "INVALID_INPUT_DATA")
        }
    }

    @Test("Deleting the owner deletes its groups; deleting a member removes it from the group")
    func ownerDeletion() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let member = try await client.pseudoUser()
            let groupID = try #require(
                try await client.call(
                    .post, "\(client.app)/groups", token: owner.token, contentType: "application/json",
                    json: ["name": "club", "members": [.string(member.id)]]
                ).string("groupID"))
            #expect(try await client.call(.delete, "\(client.app)/users/me", token: owner.token).status == .noContent)
            let admin = try await client.adminToken()
            #expect(
                try await client.call(.get, "\(client.app)/groups/\(groupID)", token: admin).errorCode
                    == "GROUP_NOT_FOUND")
        }
    }
}
