import Testing
import TopicGateCore
import TopicGateStore

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
}
