import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore
import TopicGateStore

@testable import TopicGateServer

/// What a caller may learn and keep: no user enumeration through changes, no membership
/// revealed by explanations, no rights kept after leaving a group or a thing, and no revoked
/// entry brought back by the topic cache.
@Suite("Access hardening")
struct AccessHardeningTests {
    @Test("Changes to other users answer the same whether they exist or not")
    func noEnumerationThroughChanges() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            _ = try await client.normalUser("ann")
            let eve = try await client.pseudoUser()
            for token in [nil, eve.token] as [String?] {
                for name in ["LOGIN_NAME:ann", "LOGIN_NAME:nobody-here", "EMAIL:ann@example.com", "nonexistent-id"] {
                    let update = try await client.call(
                        .post, "\(client.app)/users/\(name)", token: token, contentType: "application/json",
                        body: #"{"displayName":"x"}"#)
                    let delete = try await client.call(.delete, "\(client.app)/users/\(name)", token: token)
                    let password = try await client.call(
                        .put, "\(client.app)/users/\(name)/password", token: token, contentType: "application/json",
                        body: #"{"oldPassword":"password123","newPassword":"another-pass"}"#)
                    for reply in [update, delete, password] {
                        // Kii's UNAUTHORIZED: 401 without credentials, 403 with them.
                        #expect(reply.status == (token == nil ? .unauthorized : .forbidden), "\(name)")
                        #expect(reply.errorCode == "UNAUTHORIZED", "\(name): \(reply.text)")
                    }
                }
            }
            // The user itself and the admin still can.
            let admin = try await client.adminToken()
            #expect(
                try await client.call(
                    .post, "\(client.app)/users/LOGIN_NAME:ann", token: admin, contentType: "application/json",
                    body: #"{"displayName":"Ann"}"#
                ).status == .ok)
            #expect(
                try await client.call(
                    .post, "\(client.app)/users/LOGIN_NAME:nobody-here", token: admin, contentType: "application/json",
                    body: #"{"displayName":"x"}"#
                ).errorCode == "USER_NOT_FOUND")
        }
    }

    @Test("acl-explain tells a topic's manager about itself and anonymous callers only; the admin about anyone")
    func explainRevealsNoMembership() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let bob = try await client.pseudoUser()
            let group = try await client.group(owner: owner.token, members: [bob.id])
            // A user-scope topic of the owner: the owner manages it, but must not learn bob's groups.
            let topic = "\(client.app)/users/me/topics/diary"
            #expect(try await client.call(.put, topic, token: owner.token).status == .noContent)
            #expect(
                try await client.call(.put, "\(topic)/acl/SEND_MESSAGE_TO_TOPIC/GroupID:\(group)", token: owner.token)
                    .status == .noContent)
            let aboutBob = try await client.call(
                .get, "\(topic)/acl-explain?principal=user:\(bob.id)&action=SEND_MESSAGE_TO_TOPIC", token: owner.token)
            #expect(aboutBob.status == .forbidden)
            #expect(aboutBob.object["allowed"] == nil)
            let aboutSelf = try await client.call(
                .get, "\(topic)/acl-explain?principal=user:\(owner.id)&action=SEND_MESSAGE_TO_TOPIC", token: owner.token
            )
            #expect(aboutSelf.object["allowed"] == true)
            let aboutAnonymous = try await client.call(
                .get, "\(topic)/acl-explain?principal=anonymous&action=SUBSCRIBE_TO_TOPIC", token: owner.token)
            #expect(aboutAnonymous.object["allowed"] == false)
            let admin = try await client.adminToken()
            let ownerTopic = "\(client.app)/users/\(owner.id)/topics/diary"
            #expect(
                try await client.call(
                    .get, "\(ownerTopic)/acl-explain?principal=user:\(bob.id)&action=SEND_MESSAGE_TO_TOPIC",
                    token: admin
                ).object["allowed"] == true)
        }
    }

    @Test("A group topic's creator who left the group loses management, and its entries become removable")
    func creatorLeavingTheGroupLosesTheTopic() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let carol = try await client.pseudoUser()
            let group = try await client.group(owner: owner.token, members: [carol.id])
            let topic = "\(client.app)/groups/\(group)/topics/plans"
            #expect(try await client.call(.put, topic, token: carol.token).status == .noContent)
            #expect(
                try await client.call(
                    .delete, "\(topic)/acl/SEND_MESSAGE_TO_TOPIC/UserID:\(carol.id)", token: owner.token
                )
                .errorCode == "ACL_ENTRY_NOT_REMOVABLE")
            #expect(
                try await client.call(.delete, "\(client.app)/groups/\(group)/members/\(carol.id)", token: owner.token)
                    .status
                    == .noContent)
            // Carol may no longer manage the topic…
            #expect(try await client.call(.get, "\(topic)/acl", token: carol.token).status == .forbidden)
            #expect(
                try await client.call(
                    .put, "\(topic)/acl/SUBSCRIBE_TO_TOPIC/UserID:ANY_AUTHENTICATED_USER", token: carol.token
                )
                .status == .forbidden)
            // …and the group's owner can remove her entries.
            let detailed = try await client.call(.get, "\(topic)/acl?detailed=true", token: owner.token)
            let carolEntries = (detailed.object["entries"]?.arrayValue ?? []).compactMap(\.objectValue)
                .filter { $0["subject"]?.stringValue == "UserID:\(carol.id)" }
            #expect(!carolEntries.isEmpty && carolEntries.allSatisfy { $0["removable"] == true })
            for action in ["SEND_MESSAGE_TO_TOPIC", "SUBSCRIBE_TO_TOPIC"] {
                #expect(
                    try await client.call(.delete, "\(topic)/acl/\(action)/UserID:\(carol.id)", token: owner.token)
                        .status
                        == .noContent)
            }
            #expect(try await client.send(topic, token: carol.token).status == .forbidden)
        }
    }

    @Test("A thing topic's creator who no longer owns the thing loses management")
    func formerOwnerLosesTheThingTopic() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let dan = try await client.pseudoUser()
            let thing = try await client.thing("lamp-owned")
            #expect(
                try await client.call(
                    .put, "\(client.app)/things/\(thing.id)/ownership/user:\(dan.id)", token: thing.token
                )
                .status == .noContent)
            let topic = "\(client.app)/things/\(thing.id)/topics/status"
            #expect(try await client.call(.put, topic, token: dan.token).status == .noContent)
            #expect(
                try await client.call(
                    .delete, "\(client.app)/things/\(thing.id)/ownership/user:\(dan.id)", token: thing.token
                )
                .status == .noContent)
            #expect(try await client.call(.get, "\(topic)/acl", token: dan.token).status == .forbidden)
            #expect(
                try await client.call(
                    .delete, "\(topic)/acl/SEND_MESSAGE_TO_TOPIC/UserID:\(dan.id)", token: thing.token
                )
                .status == .noContent)
        }
    }

    /// The app topic `t` of app `a`, for the cache's own tests.
    static let cachedAppID = AppID("a")
    static let cachedAddress = TopicAddress(scope: .app, name: TopicName(rawValue: "t")!)
    static let cachedTopic = Topic(appID: cachedAppID, address: cachedAddress, creator: .admin, createdAt: 1)

    @Test("A read that raced with an invalidation is never cached")
    func staleReadIsNotCached() {
        let (cache, appID, address, topic) = (TopicCache(), Self.cachedAppID, Self.cachedAddress, Self.cachedTopic)
        let old = [ACLEntry(.send, .anyAuthenticated)]
        let before = cache.generation(appID, address)
        cache.invalidate(appID, address)  // a revoke returned while the read ran
        cache.put(appID, address, (topic, old), readAt: before)
        #expect(cache.get(appID, address) == nil)
        let afterAll = cache.generation(appID, address)
        cache.invalidateAll()
        cache.put(appID, address, (topic, old), readAt: afterAll)
        #expect(cache.get(appID, address) == nil)
        let fresh = cache.generation(appID, address)
        cache.put(appID, address, (topic, []), readAt: fresh)
        #expect(cache.get(appID, address)?.1 == [])
    }

    @Test(
        "A topic as this gateway's own change left it is kept only if that change's invalidation is the only one since the topic was read"
    )
    func changedTopicIsKeptOnlyAlone() {
        let (cache, appID, address, topic) = (TopicCache(), Self.cachedAppID, Self.cachedAddress, Self.cachedTopic)
        let granted = [ACLEntry(.send, .anyAuthenticated)]
        // Read, changed (the change invalidates the key once), kept as the change left it.
        var readAt = cache.generation(appID, address)
        cache.invalidate(appID, address)
        cache.putChanged(appID, address, (topic, granted), readAt: readAt)
        #expect(cache.get(appID, address)?.1 == granted)
        // Another change heard meanwhile (another gateway's notice, or this change's own echo
        // before it returned): not kept.
        readAt = cache.generation(appID, address)
        cache.invalidate(appID, address)
        cache.invalidate(appID, address)
        cache.putChanged(appID, address, (topic, []), readAt: readAt)
        #expect(cache.get(appID, address) == nil)
        // Everything dropped meanwhile: not kept.
        readAt = cache.generation(appID, address)
        cache.invalidate(appID, address)
        cache.invalidateAll()
        cache.putChanged(appID, address, (topic, []), readAt: readAt)
        #expect(cache.get(appID, address) == nil)
        // The change did not tell the cache: not kept either.
        readAt = cache.generation(appID, address)
        cache.putChanged(appID, address, (topic, []), readAt: readAt)
        #expect(cache.get(appID, address) == nil)
    }

    @Test("Revokes raced against sends: once a revoke returns, the next send is refused", arguments: 0..<3)
    func revokesRacedAgainstSends(round: Int) async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let owner = try await client.pseudoUser()
            let eve = try await client.pseudoUser()
            let topic = "\(client.app)/users/me/topics/t\(round)"
            let ownerTopic = "\(client.app)/users/\(owner.id)/topics/t\(round)"
            #expect(try await client.call(.put, topic, token: owner.token).status == .noContent)
            for _ in 0..<15 {
                #expect(
                    try await client.call(
                        .put, "\(ownerTopic)/acl/SEND_MESSAGE_TO_TOPIC/UserID:\(eve.id)", token: owner.token
                    )
                    .status == .noContent)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<4 {
                        group.addTask { _ = try await client.send(ownerTopic, token: eve.token) }
                    }
                    group.addTask {
                        let revoked = try await client.call(
                            .delete, "\(ownerTopic)/acl/SEND_MESSAGE_TO_TOPIC/UserID:\(eve.id)", token: owner.token)
                        #expect(revoked.status == .noContent)
                        #expect(try await client.send(ownerTopic, token: eve.token).status == .forbidden)
                    }
                    try await group.waitForAll()
                }
                #expect(try await client.send(ownerTopic, token: eve.token).status == .forbidden)
            }
        }
    }
}
