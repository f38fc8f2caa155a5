import Foundation
import GRDB
import TestSupport
import Testing
import TopicGateCore

@testable import TopicGateStore

/// The embedded store commits concurrent writes together; each still succeeds or fails alone.
@Suite("Store: group commit (SQLite)")
struct GroupCommitTests {
    let appID = AppID("app1")

    @Test("Of many concurrent sign-ups, exactly the ones whose name is taken fail; all the others are stored")
    func concurrentWrites() async throws {
        let store = try await StoreEngine.sqlite.newStore(appID: appID)
        // Users 0..<100; every fifth one takes the login name of the one before it.
        let outcomes = await withTaskGroup(of: (Int, KiiError.Code?).self) { group in
            for index in 0..<100 {
                group.addTask {
                    let name = index % 5 == 4 ? "user-\(index - 1)" : "user-\(index)"
                    do {
                        try await store.insertUser(
                            User(
                                id: UserID("u\(index)"), appID: appID, loginName: name, passwordHash: "h",
                                createdAt: 1, modifiedAt: 1))
                        return (index, nil)
                    } catch let error as KiiError {
                        return (index, error.code)
                    } catch {
                        return (index, KiiError.Code(rawValue: "NOT_A_KII_ERROR"))
                    }
                }
            }
            var outcomes: [Int: KiiError.Code?] = [:]
            for await (index, code) in group { outcomes[index] = code }
            return outcomes
        }
        for index in 0..<100 {
            let stored = try await store.user(appID: appID, id: UserID("u\(index)"))
            let taken = outcomes[index] == .some(.userAlreadyExists)
            let first = try await store.user(appID: appID, address: .loginName("user-\(index)"))
            if index % 5 == 3 {
                // It and the next one raced for its name: exactly one of them has it.
                let next = outcomes[index + 1] == .some(.userAlreadyExists)
                #expect(taken != next, "user \(index) and \(index + 1) both \(taken ? "failed" : "succeeded")")
                #expect(first != nil)
            } else if index % 5 != 4 {
                #expect(outcomes[index] == .some(nil), "user \(index): \(String(describing: outcomes[index]))")
                #expect(stored != nil)
            }
            #expect((stored != nil) == !taken)
        }
    }

    @Test(
        "A write alone (committed on its caller's thread) fails with its own error, leaves nothing, and the next write works"
    )
    func alone() async throws {
        let store = try await StoreEngine.sqlite.newStore(appID: appID)
        func user(_ id: String, _ name: String) -> User {
            User(id: UserID(id), appID: appID, loginName: name, passwordHash: "h", createdAt: 1, modifiedAt: 1)
        }
        try await store.insertUser(user("a", "same"))
        let error = await #expect(throws: KiiError.self) { try await store.insertUser(user("b", "same")) }
        #expect(error?.code == .userAlreadyExists)
        #expect(try await store.user(appID: appID, id: UserID("b")) == nil)
        try await store.insertUser(user("c", "other"))
        #expect(try await store.user(appID: appID, id: UserID("c")) != nil)
        #expect(try await store.user(appID: appID, id: UserID("a")) != nil)
    }

    @Test(
        "A write that need not be synced commits at synchronous NORMAL when alone; every synced write, grouped or not, at FULL"
    )
    func unsyncedWrites() async throws {
        let store = try #require(try await StoreEngine.sqlite.newStore(appID: appID) as? SQLiteStore)
        // The level each write's transaction runs at (2 = FULL, 1 = NORMAL).
        @Sendable func level(synced: Bool) async throws -> Int {
            try await store.write(synced: synced) { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
        }
        #expect(try await level(synced: false) == 1)
        #expect(try await level(synced: true) == 2)
        #expect(try await level(synced: false) == 1)
        #expect(try await level(synced: false) == 1)
        #expect(try await level(synced: true) == 2)
        // Many at once, grouped in shared transactions: a transaction holding a synced write is synced.
        let levels = try await allAtOnce(200) { index in (index % 3 == 0, try await level(synced: index % 3 == 0)) }
        #expect(levels.filter { synced, level in synced && level != 2 }.isEmpty)
        #expect(levels.allSatisfy { _, level in level == 1 || level == 2 })
    }
}

/// The log is copied into the database file in the background, not by the writer.
@Suite("Store: background checkpoint (SQLite)")
struct BackgroundCheckpointTests {
    @Test("Written pages reach the database file without the writer's own checkpoint, and survive reopening")
    func copied() async throws {
        let location = try await StoreEngine.sqlite.newLocation()
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: location + suffix) }
        }
        let appID = AppID("app1")
        var store: (any Store)? = try await StoreEngine.sqlite.open(location)
        try await store?.insertApp(
            App(id: appID, key: "key", clientID: "client", clientSecretHash: "hash", name: "test", createdAt: 1))
        func fileSize() -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: location))?[.size] as? Int) ?? 0
        }
        let before = fileSize()
        // About 1 MiB of log: far below the 64 MiB at which the writer checkpoints itself.
        for index in 0..<1000 {
            try await store?.insertUser(
                User(
                    id: UserID("u\(index)"), appID: appID, loginName: "user-\(index)", passwordHash: "h",
                    profile: UserProfile(displayName: String(repeating: "x", count: 500)), createdAt: 1,
                    modifiedAt: 1))
        }
        #expect(try await eventually(timeout: .seconds(5)) { fileSize() > before + 500_000 })
        store = nil
        let reopened = try await StoreEngine.sqlite.open(location)
        #expect(try await reopened.user(appID: appID, id: UserID("u999"))?.loginName == "user-999")
    }
}
