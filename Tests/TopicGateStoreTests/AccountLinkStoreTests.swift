import Foundation
import TestSupport
import Testing
import TopicGateCore
import TopicGateStore

/// Account links, the security audit and idle pseudo users, on each engine.
@Suite("Store: links, audit, idle pseudo users")
struct AccountLinkStoreTests {
    let appID = AppID("app1")

    func newStore(_ engine: StoreEngine) async throws -> any Store {
        try await engine.newStore(appID: appID)
    }

    func pseudo(_ id: String, lastSeen: Int64) -> User {
        User(id: UserID(id), appID: appID, createdAt: 1, modifiedAt: 1, lastSeenAt: UnixMillis(lastSeen))
    }

    @Test(
        "A pair is linked once per user and once per secret: LINK_ALREADY_EXISTS; links go with their user",
        arguments: StoreEngine.allCases)
    func links(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        try await store.insertUser(pseudo("u1", lastSeen: 1))
        try await store.insertUser(pseudo("u2", lastSeen: 1))
        let link = AccountLink(
            appID: appID, provider: "icloud", externalID: "_x", secretHash: "h1", userID: UserID("u1"), createdAt: 5)
        try await store.insertLink(link)
        #expect(try await store.link(appID: appID, provider: "icloud", externalID: "_x", secretHash: "h1") == link)
        #expect(try await store.link(appID: appID, provider: "icloud", externalID: "_x", userID: UserID("u1")) == link)
        #expect(try await store.link(appID: appID, provider: "icloud", externalID: "_x", secretHash: "h2") == nil)
        // Another user links the same pair with its own secret: both stand.
        let other = AccountLink(
            appID: appID, provider: "icloud", externalID: "_x", secretHash: "h2", userID: UserID("u2"), createdAt: 6)
        try await store.insertLink(other)
        #expect(try await store.link(appID: appID, provider: "icloud", externalID: "_x", secretHash: "h2") == other)
        // The same pair again for u1, or with u1's secret for u2: refused.
        await #expect(throws: KiiError.self) {
            try await store.insertLink(
                AccountLink(
                    appID: appID, provider: "icloud", externalID: "_x", secretHash: "h9", userID: UserID("u1"),
                    createdAt: 7))
        }
        await #expect(throws: KiiError.self) {
            try await store.updateLinkSecret(
                appID: appID, userID: UserID("u2"), provider: "icloud", externalID: "_x", secretHash: "h1", at: 8)
        }
        #expect(
            try await store.updateLinkSecret(
                appID: appID, userID: UserID("u1"), provider: "icloud", externalID: "_x", secretHash: "h3", at: 9))
        #expect(
            try await !store.updateLinkSecret(
                appID: appID, userID: UserID("u3"), provider: "icloud", externalID: "_x", secretHash: "h4", at: 9))
        try await store.recordLinkLogin(
            appID: appID, provider: "icloud", externalID: "_x", userID: UserID("u1"), at: 10)
        let updated = try #require(try await store.links(appID: appID, userID: UserID("u1")).first)
        #expect(updated.secretHash == "h3")
        #expect(updated.secretSetAt == 9)
        #expect(updated.lastLoginAt == 10)
        #expect(try await store.links(appID: appID, userID: UserID("u2")).first?.lastLoginAt == nil)
        #expect(try await store.deleteUser(appID: appID, id: UserID("u1")))
        #expect(try await store.link(appID: appID, provider: "icloud", externalID: "_x", userID: UserID("u1")) == nil)
        #expect(try await store.link(appID: appID, provider: "icloud", externalID: "_x", userID: UserID("u2")) == other)
    }

    @Test("Idle pseudo users: only pseudo, only idle, never linked; oldest first", arguments: StoreEngine.allCases)
    func idle(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        try await store.insertUser(pseudo("old", lastSeen: 100))
        try await store.insertUser(pseudo("older", lastSeen: 50))
        try await store.insertUser(pseudo("recent", lastSeen: 900))
        try await store.insertUser(pseudo("linked", lastSeen: 10))
        try await store.insertUser(
            User(
                id: UserID("normal"), appID: appID, loginName: "n", passwordHash: "h", createdAt: 1, modifiedAt: 1,
                lastSeenAt: 10))
        try await store.insertLink(
            AccountLink(
                appID: appID, provider: "icloud", externalID: "_l", secretHash: "h", userID: UserID("linked"),
                createdAt: 1))
        let idle = try await store.idlePseudoUsers(appID: appID, lastSeenBefore: 500, limit: 10)
        #expect(idle.map(\.id.rawValue) == ["older", "old"])
        #expect(
            try await store.idlePseudoUsers(appID: nil, lastSeenBefore: 500, limit: 1).map(\.id.rawValue) == ["older"])
        #expect(try await store.idlePseudoUsers(appID: AppID("other"), lastSeenBefore: 500, limit: 10).isEmpty)
    }

    @Test(
        "An idle pseudo user is deleted only while still idle: never once upgraded, linked or seen again",
        arguments: StoreEngine.allCases)
    func deleteOnlyIdle(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        for id in ["idle", "upgraded", "linked", "seen"] { try await store.insertUser(pseudo(id, lastSeen: 10)) }
        _ = try await store.updateUser(appID: appID, id: UserID("upgraded")) { $0.passwordHash = "h" }
        try await store.insertLink(
            AccountLink(
                appID: appID, provider: "icloud", externalID: "_l", secretHash: "h", userID: UserID("linked"),
                createdAt: 1))
        try await store.touchUser(appID: appID, id: UserID("seen"), at: 900)
        for id in ["upgraded", "linked", "seen"] {
            #expect(try await store.deleteIdlePseudoUser(appID: appID, id: UserID(id), lastSeenBefore: 500) == false)
            #expect(try await store.user(appID: appID, id: UserID(id)) != nil)
        }
        #expect(try await store.deleteIdlePseudoUser(appID: appID, id: UserID("idle"), lastSeenBefore: 500))
        #expect(try await store.user(appID: appID, id: UserID("idle")) == nil)
        #expect(try await store.deleteIdlePseudoUser(appID: appID, id: UserID("idle"), lastSeenBefore: 500) == false)
    }

    @Test(
        "Cleanup racing upgrades: each user is either deleted or upgraded, never an upgraded user deleted",
        arguments: StoreEngine.allCases)
    func cleanupRacingUpgrades(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        let count = 40
        for index in 0..<count { try await store.insertUser(pseudo("p\(index)", lastSeen: 10)) }
        let appID = appID
        async let deletions = allAtOnce(count) { index in
            (index, try await store.deleteIdlePseudoUser(appID: appID, id: UserID("p\(index)"), lastSeenBefore: 500))
        }
        async let upgrades = allAtOnce(count) { index in
            (index, try await store.updateUser(appID: appID, id: UserID("p\(index)")) { $0.passwordHash = "h" } != nil)
        }
        let deleted = Dictionary(uniqueKeysWithValues: try await deletions)
        let upgraded = Dictionary(uniqueKeysWithValues: try await upgrades)
        for index in 0..<count {
            let remaining = try await store.user(appID: appID, id: UserID("p\(index)"))
            #expect(
                deleted[index] != upgraded[index], "p\(index): deleted \(deleted[index]!), upgraded \(upgraded[index]!)"
            )
            #expect((remaining != nil) == upgraded[index], "p\(index)")
            #expect(remaining.map { $0.passwordHash != nil } ?? true)
        }
    }

    @Test("The security audit pages newest first", arguments: StoreEngine.allCases)
    func audit(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        for index in 0..<5 {
            try await store.appendSecurityEvent(
                SecurityEvent(
                    at: UnixMillis(Int64(index)), appID: appID, kind: .linkLoginFailed, actor: "anonymous",
                    account: "icloud:_\(index)",
                    clientAddress: "203.0.113.1", detail: "wrong secret"))
        }
        let first = try await store.securityEvents(appID: appID, limit: 3, before: nil)
        #expect(first.map(\.event.at) == [4, 3, 2])
        let second = try await store.securityEvents(appID: appID, limit: 3, before: first.last?.sequence)
        #expect(second.map(\.event.at) == [1, 0])
        #expect(second.first?.event.clientAddress == "203.0.113.1")
        #expect(try await store.securityEvents(appID: AppID("other"), limit: 3, before: nil).isEmpty)
    }
}
