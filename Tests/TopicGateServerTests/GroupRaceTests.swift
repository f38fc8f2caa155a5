import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore
import TopicGateServer
import TopicGateStore

/// The old owner's rename racing the admin's hand-over of the group undoes neither.
@Suite("Groups: racing writes")
struct GroupRaceTests {
    @Test(
        "The owner's renames racing the admin's hand-over: the group ends with the new owner, and a rename answered 204 after it was checked against the owner then"
    )
    func renameRacesHandOver() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let admin = try await client.adminToken()
            for round in 0..<10 {
                let old = try await client.pseudoUser()
                let heir = try await client.pseudoUser()
                let groupID = try #require(
                    try await client.call(
                        .post, "\(client.app)/groups", token: old.token, contentType: "application/json",
                        json: ["name": "club"]
                    ).string("groupID"))
                let group = "\(client.app)/groups/\(groupID)"
                let renamed = try await withThrowingTaskGroup(of: [HTTPResponse.Status].self) { tasks in
                    tasks.addTask {
                        var statuses: [HTTPResponse.Status] = []
                        for attempt in 0..<4 {
                            statuses.append(
                                try await client.call(
                                    .put, "\(group)/name", token: old.token, contentType: "text/plain",
                                    body: "round \(round) attempt \(attempt)"
                                ).status)
                        }
                        return statuses
                    }
                    tasks.addTask {
                        try await client.call(
                            .put, "\(group)/owner", token: admin,
                            contentType: "application/vnd.kii.GroupOwnerChangeRequest+json",
                            json: ["owner": .string(heir.id)]
                        ).expect(.noContent)
                        return []
                    }
                    return try await tasks.reduce(into: []) { $0 += $1 }
                }
                let stored = try #require(try await server.store.group(appID: server.app.id, id: GroupID(groupID)))
                #expect(stored.owner == UserID(heir.id), "round \(round)")
                #expect(
                    try await server.store.members(appID: server.app.id, group: GroupID(groupID)).contains(
                        UserID(heir.id)), "round \(round)")
                // Each rename either landed while the old owner still owned the group or was refused.
                #expect(renamed.allSatisfy { $0 == .noContent || $0 == .forbidden }, "round \(round): \(renamed)")
                // Once one was refused, none after it landed.
                if let refused = renamed.firstIndex(of: .forbidden) {
                    #expect(renamed[refused...].allSatisfy { $0 == .forbidden }, "round \(round): \(renamed)")
                }
            }
        }
    }

    @Test(
        "A member leaving as the owner hands it the group: the new owner is a member whichever commits first, and its leave is answered 204 or OPERATION_NOT_ALLOWED"
    )
    func leaveRacesHandOver() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            for round in 0..<50 {
                let old = try await client.pseudoUser()
                let heir = try await client.pseudoUser()
                let groupID = try #require(
                    try await client.call(
                        .post, "\(client.app)/groups", token: old.token, contentType: "application/json",
                        json: ["name": "club", "members": [.string(heir.id)]]
                    ).string("groupID"))
                let group = "\(client.app)/groups/\(groupID)"
                let left = try await withThrowingTaskGroup(of: APIReply?.self) { tasks in
                    tasks.addTask {
                        try await client.call(.delete, "\(group)/members/\(heir.id)", token: heir.token)
                    }
                    tasks.addTask {
                        try await client.call(
                            .put, "\(group)/owner", token: old.token,
                            contentType: "application/vnd.kii.GroupOwnerChangeRequest+json",
                            json: ["owner": .string(heir.id)]
                        ).expect(.noContent)
                        return nil
                    }
                    var left: APIReply?
                    for try await reply in tasks { if let reply { left = reply } }
                    return try #require(left)
                }
                #expect(
                    left.status == .noContent || left.errorCode == "OPERATION_NOT_ALLOWED",
                    "round \(round): \(left.status)")
                let stored = try #require(try await server.store.group(appID: server.app.id, id: GroupID(groupID)))
                #expect(stored.owner == UserID(heir.id), "round \(round)")
                #expect(
                    try await server.store.members(appID: server.app.id, group: GroupID(groupID)).contains(
                        stored.owner),
                    "round \(round): the owner is not a member")
            }
        }
    }
}
