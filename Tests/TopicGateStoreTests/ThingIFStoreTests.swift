import Foundation
import Testing
import TopicGateCore
import TopicGateStore

/// Commands and states on each engine: pagination, delivery marks, retention, and deletion
/// with the thing.
@Suite("Store: commands and states")
struct ThingIFStoreTests {
    let appID = AppID("app1")
    let thing = ThingID("th")

    /// A new store with the app and its thing `th`.
    func newStore(_ engine: StoreEngine) async throws -> any Store {
        let store = try await engine.newStore(appID: appID)
        try await store.insertThing(
            Thing(
                id: thing, appID: appID, vendorThingID: "v", passwordHash: "h", fields: ThingFields(), createdAt: 1,
                modifiedAt: 1))
        return store
    }

    func command(_ id: String, at time: Int64) throws -> Command {
        let request = try CommandRequest(body: ["actions": [["turnPower": true]], "issuer": "user:u1", "title": "t"])
        return Command(
            id: CommandID(id), appID: appID, thing: thing, issuer: request.issuer, request: request,
            createdAt: UnixMillis(time),
            modifiedAt: UnixMillis(time))
    }

    @Test(
        "Commands round-trip, page newest first; publication leaves the state as it is", arguments: StoreEngine.allCases
    )
    func commands(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        for index in 0..<5 { try await store.insertCommand(try command("c\(index)", at: Int64(100 + index / 2))) }
        #expect(try await store.command(appID: appID, id: "c0") == (try command("c0", at: 100)))
        let issuer = try await store.commandIssuer(appID: appID, id: "c0")
        #expect(issuer?.thing == thing && issuer?.issuer == .user(UserID("u1")))
        #expect(try await store.commandIssuer(appID: appID, id: "nope") == nil)
        #expect(try await store.commandIssuer(appID: AppID("other"), id: "c0") == nil)
        var seen: [String] = []
        var key: String?
        repeat {
            let page = try await store.commands(appID: appID, thing: thing, limit: 2, after: key)
            seen += page.commands.map(\.id.rawValue)
            key = page.next
        } while key != nil
        #expect(seen == ["c4", "c3", "c2", "c1", "c0"])

        try await store.recordResults(
            appID: appID, id: "c1", results: [["turnPower": ["succeeded": true]]], state: .done, at: 200)
        try await store.completeMessages(ids: [], publishedCommands: [appID: ["c0", "c1"]], at: 300)
        #expect(try await store.command(appID: appID, id: "c0")?.state == .sending)
        #expect(try await store.command(appID: appID, id: "c0")?.publishedAt == 300)
        #expect(try await store.command(appID: appID, id: "c1")?.state == .done)
        #expect(try await store.command(appID: appID, id: "c1")?.actionResults != nil)
    }

    @Test("States: latest, history in a range, retention that never drops the latest", arguments: StoreEngine.allCases)
    func states(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        for (index, at) in [UnixMillis(1000), 2000, 3000].enumerated() {
            try await store.recordState(
                appID: appID, thing: thing, [ThingStateRecord(state: ["n": .int(Int64(index))], recordedAt: at)],
                keepSince: 0, keepAtMost: 100)
        }
        #expect(try await store.latestState(appID: appID, thing: thing)?.state == ["n": 2])
        #expect(
            try await store.stateHistory(
                appID: appID, thing: thing, alias: nil, from: 1500, to: 3000, limit: 10, maximumBytes: 1 << 20
            ).states.map(\.recordedAt) == [2000, 3000])
        #expect(
            try await store.stateHistory(
                appID: appID, thing: thing, alias: nil, from: 0, to: .max, limit: 1, maximumBytes: 1 << 20
            )
            .states.map(\.recordedAt) == [1000])
        // A new state with a cutoff after everything: only it remains.
        try await store.recordState(
            appID: appID, thing: thing, [ThingStateRecord(state: ["n": 3], recordedAt: 9000)], keepSince: 9500,
            keepAtMost: 100)
        #expect(
            try await store.stateHistory(
                appID: appID, thing: thing, alias: nil, from: 0, to: .max, limit: 10, maximumBytes: 1 << 20
            ).states.map(\.recordedAt) == [9000])
    }

    @Test("Deleting the thing deletes its commands and states", arguments: StoreEngine.allCases)
    func cascade(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        try await store.insertCommand(try command("c", at: 1))
        try await store.recordState(
            appID: appID, thing: thing, [ThingStateRecord(state: ["on": true], recordedAt: 1)], keepSince: 0,
            keepAtMost: 100)
        #expect(try await store.deleteThing(appID: appID, id: thing))
        #expect(try await store.command(appID: appID, id: "c") == nil)
        #expect(try await store.commandIssuer(appID: appID, id: "c") == nil)
        #expect(try await store.latestState(appID: appID, thing: thing) == nil)
    }

    @Test(
        "The row cap keeps the newest states; a history page stops at its byte budget, never empty",
        arguments: StoreEngine.allCases)
    func capsAndPages(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        for index in 0..<10 {
            let state: [String: JSONValue] = [
                "n": .int(Int64(index)), "pad": .string(String(repeating: "x", count: 100)),
            ]
            try await store.recordState(
                appID: appID, thing: thing,
                [ThingStateRecord(state: state, recordedAt: UnixMillis(Int64(10_000 + index)))],
                keepSince: 0,
                keepAtMost: 4)
        }
        let all = try await store.stateHistory(
            appID: appID, thing: thing, alias: nil, from: 0, to: .max, limit: 100, maximumBytes: 1 << 20)
        #expect(all.states.map(\.recordedAt) == [10_006, 10_007, 10_008, 10_009])
        #expect(all.complete)
        let page = try await store.stateHistory(
            appID: appID, thing: thing, alias: nil, from: 0, to: .max, limit: 100, maximumBytes: 250)
        #expect(page.states.count == 2)
        #expect(!page.complete)
        let tiny = try await store.stateHistory(
            appID: appID, thing: thing, alias: nil, from: 0, to: .max, limit: 100, maximumBytes: 1)
        #expect(tiny.states.count == 1)
        #expect(!tiny.complete)
    }

    @Test(
        "Trait states per alias: the latest of each alias, an alias's history, and retention that keeps each alias's latest",
        arguments: StoreEngine.allCases)
    func traitStates(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        func record(_ alias: String, _ value: Int64, at: UnixMillis) -> ThingStateRecord {
            ThingStateRecord(state: ["v": .int(value)], recordedAt: at, alias: alias)
        }
        try await store.recordState(
            appID: appID, thing: thing, [record("power", 1, at: 100), record("climate", 20, at: 100)], keepSince: 0,
            keepAtMost: 100)
        try await store.recordState(
            appID: appID, thing: thing, [record("climate", 21, at: 200)], keepSince: 0, keepAtMost: 100)
        let latest = try await store.latestStates(appID: appID, thing: thing)
        #expect(Set(latest.map { "\($0.alias ?? "-")=\($0.state["v"]?.intValue ?? 0)" }) == ["power=1", "climate=21"])
        #expect(latest.first?.alias == "climate")
        let climate = try await store.stateHistory(
            appID: appID, thing: thing, alias: "climate", from: 0, to: .max, limit: 10, maximumBytes: 1 << 20)
        #expect(climate.states.map { $0.state["v"]?.intValue } == [20, 21])
        // Long past retention: each alias keeps its latest state, nothing older.
        try await store.recordState(
            appID: appID, thing: thing, [record("climate", 22, at: 900)], keepSince: 500, keepAtMost: 100)
        let kept = try await store.stateHistory(
            appID: appID, thing: thing, alias: nil, from: 0, to: .max, limit: 10, maximumBytes: 1 << 20)
        #expect(kept.states.map { "\($0.alias ?? "-")=\($0.state["v"]?.intValue ?? 0)" } == ["power=1", "climate=22"])
    }
}
