import Foundation
import Testing
import TopicGateCore
import TopicGateStore

/// A trigger's writes store only the parts they change: an owner's change made from a copy read
/// before a disable or a schedule's move leaves those standing, on each engine.
@Suite("Store: trigger updates")
struct TriggerUpdateTests {
    let appID = AppID("app1")

    @Test(
        "A definition written from a stale copy keeps the disable and the schedule made since; a status written keeps the definition",
        arguments: StoreEngine.allCases)
    func partsStand(_ engine: StoreEngine) async throws {
        let store = try await engine.newStore(appID: appID)
        let lamp = ThingID("lamp")
        try await store.insertThing(
            Thing(
                id: lamp, appID: appID, vendorThingID: "v-lamp", passwordHash: "h", fields: ThingFields(), createdAt: 1,
                modifiedAt: 1))
        let command = try TriggerCommand(
            json: ["issuer": "user:u1", "actions": [["turnPower": true]]], watched: lamp)
        let predicate = try TriggerPredicate(json: ["eventSource": "SCHEDULE", "schedule": "0 * * * *"])
        let id = TriggerID("t1")
        try await store.insertTrigger(
            Trigger(
                id: id, appID: appID, thing: lamp, predicate: predicate, command: command, title: "old",
                nextDueAt: 1_000, createdAt: 1, modifiedAt: 1))
        // An owner read the trigger here...
        var stale = try #require(try await store.trigger(appID: appID, id: id))
        // ...then a firing moved its schedule on and it was disabled...
        var moved = stale
        moved.nextDueAt = 2_000
        moved.modifiedAt = 2
        #expect(try await store.updateTrigger(moved, parts: .schedule))
        try await store.disableTrigger(appID: appID, id: id, reason: "no longer its owner's", at: 3)
        // ...and the owner's new title, on that copy, lands.
        stale.title = "new"
        stale.modifiedAt = 4
        #expect(try await store.updateTrigger(stale, parts: .definition))
        let read = try #require(try await store.trigger(appID: appID, id: id))
        #expect(read.title == "new")
        #expect(read.nextDueAt == 2_000)
        #expect(read.disabled)
        #expect(read.disabledReason == "no longer its owner's")
        #expect(read.modifiedAt == 4)
        // Enabled from a copy with the old title: the title stands.
        var enabling = stale
        enabling.title = "old"
        enabling.disabled = false
        enabling.disabledReason = nil
        enabling.modifiedAt = 5
        #expect(try await store.updateTrigger(enabling, parts: .status))
        let enabled = try #require(try await store.trigger(appID: appID, id: id))
        #expect(!enabled.disabled)
        #expect(enabled.disabledReason == nil)
        #expect(enabled.title == "new")
        #expect(enabled.nextDueAt == 2_000)
        var missing = enabled
        missing.id = TriggerID("none")
        #expect(try await !store.updateTrigger(missing, parts: .all))
    }
}
