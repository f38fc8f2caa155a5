import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore

/// Each fact a gateway on PostgreSQL keeps in memory (token holders, users, group memberships,
/// thing owners; topics and their ACLs in `FleetTests`, devices in `FleetBrokerTests`): read and
/// kept by gateway B, changed through gateway A, and enforced by B within the change feed's
/// bound (the feed brings it in milliseconds; 5 s allows for a loaded machine).
@Suite("Fleet: what one gateway keeps, another changes")
struct FleetCacheTests {
    /// A fact: what `setUp` prepares through A, a request through B that `allowed` answers
    /// 2xx while the fact holds, and the `change` through A that takes it away.
    struct Fact: Sendable, CustomTestStringConvertible {
        let name: String
        let run: @Sendable (ServerProcess, ServerProcess) async throws -> Void
        var testDescription: String { name }
    }

    static let facts: [Fact] = [
        Fact(name: "a disabled user") { a, b in
            let user = try await a.normalUser("dora")
            let admin = try await a.adminToken()
            try await Self.enforced(
                on: b, { try await b.call(.get, "\(b.app)/users/me", token: user.token) },
                after: {
                    try await a.call(
                        .put, "\(a.app)/users/\(user.id)/status", token: admin, contentType: "application/json",
                        json: ["disabled": true]
                    ).expect(.noContent)
                })
        },
        Fact(name: "revoked tokens") { a, b in
            let user = try await a.normalUser("tom")
            let admin = try await a.adminToken()
            try await Self.enforced(
                on: b, { try await b.call(.get, "\(b.app)/users/me", token: user.token) },
                after: {
                    try await a.call(.delete, "\(a.app)/users/\(user.id)/tokens", token: admin).expect(.noContent)
                })
        },
        Fact(name: "a send right revoked from a topic's ACL") { a, b in
            let owner = try await a.normalUser("tess")
            let guest = try await a.normalUser("gus")
            let topic = "\(a.app)/users/\(owner.id)/topics/desk"
            try await a.call(.put, topic, token: owner.token).expect(.noContent)
            let right = "\(topic)/acl/SEND_MESSAGE_TO_TOPIC/UserID:\(guest.id)"
            try await a.call(.put, right, token: owner.token).expect(.noContent)
            try await Self.enforced(
                on: b, { try await b.send(topic, token: guest.token) },
                after: { try await a.call(.delete, right, token: owner.token).expect(.noContent) })
        },
        Fact(name: "a member removed from a group") { a, b in
            let owner = try await a.normalUser("gwen")
            let member = try await a.normalUser("max")
            let group = try await a.group(owner: owner.token, members: [member.id])
            let topic = "\(a.app)/groups/\(group)/topics/news"
            try await a.call(.put, topic, token: owner.token).expect(.noContent)
            try await Self.enforced(
                on: b, { try await b.send(topic, token: member.token) },
                after: {
                    try await a.call(.delete, "\(a.app)/groups/\(group)/members/\(member.id)", token: owner.token)
                        .expect(.noContent)
                })
        },
        Fact(name: "an owner removed from a thing") { a, b in
            let user = try await a.normalUser("olga")
            let thing = try await a.thing("lamp-olga")
            let ownership = "\(a.app)/things/\(thing.id)/ownership/user:\(user.id)"
            try await a.call(.put, ownership, token: thing.token).expect(.noContent)
            try await Self.enforced(
                on: b, { try await b.call(.get, "\(b.app)/things/\(thing.id)", token: user.token) },
                after: { try await a.call(.delete, ownership, token: thing.token).expect(.noContent) })
        },
    ]

    /// One pair of gateways for all the facts, one after the other (each its own users and
    /// things): two processes, not two a fact, beside the rest of the suite.
    @Test(
        "Changed through gateway A, enforced by gateway B: a disabled user, revoked tokens, a send right revoked, a member removed from a group, an owner removed from a thing"
    )
    func enforcedByOther() async throws {
        try await FleetTests.withTwoGateways { a, b in
            for fact in Self.facts {
                print("FleetCacheTests: \(fact.name)")
                try await fact.run(a, b)
            }
        }
    }

    /// `request` through B succeeds twice (B has read and kept what decides it); once `change`
    /// returned through A, B refuses it within 5 s.
    static func enforced(
        on b: ServerProcess, _ request: () async throws -> APIReply, after change: () async throws -> Void
    ) async throws {
        for _ in 0..<2 {
            let reply = try await request()
            #expect((200..<300).contains(reply.status.code), "allowed before the change: \(reply.status)")
        }
        try await change()
        let start = ContinuousClock.now
        while true {
            let reply = try await request()
            if !(200..<300).contains(reply.status.code) { break }
            guard ContinuousClock.now - start < .seconds(5) else {
                Issue.record("B still allowed it 5 s after the change through A")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
