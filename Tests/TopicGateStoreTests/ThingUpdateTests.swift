import Foundation
import Testing
import TopicGateCore
import TopicGateStore

/// A thing's writes touch only what they change: an owner's field update made from a copy read
/// before a disable or a password change leaves those standing, on each engine.
@Suite("Store: thing updates")
struct ThingUpdateTests {
    let appID = AppID("app1")

    @Test(
        "Fields laid over the others; a fields update and a password change each leave the other and the status as they are",
        arguments: StoreEngine.allCases)
    func targetedWrites(_ engine: StoreEngine) async throws {
        let store = try await engine.newStore(appID: appID)
        var fields = ThingFields()
        try fields.set("_thingType", "lamp")
        try fields.set("_vendor", "acme")
        let lamp = ThingID("lamp")
        try await store.insertThing(
            Thing(
                id: lamp, appID: appID, vendorThingID: "v-lamp", passwordHash: "old-hash", fields: fields,
                createdAt: 1, modifiedAt: 1))
        // An owner read the thing here (enabled, the old password)...
        let stale = try #require(try await store.thing(appID: appID, reference: .id(lamp)))
        // ...then the admin disabled it and its password changed...
        #expect(try await store.setDisabled(appID: appID, .thing(lamp), disabled: true, at: 2))
        try await store.updateThingCredentials(
            appID: appID, id: lamp, vendorThingID: stale.vendorThingID, passwordHash: "new-hash", at: 3)
        // ...and the owner's update, made from that copy, lands.
        var update = ThingFields()
        try update.set("_firmwareVersion", "2.0")
        try update.set("_vendor", "acme-two")
        try await store.updateThingFields(appID: appID, id: lamp, update, at: 4)
        let read = try #require(try await store.thing(appID: appID, reference: .id(lamp)))
        #expect(read.disabled)
        #expect(read.passwordHash == "new-hash")
        #expect(read.fields.values["_thingType"] == "lamp")
        #expect(read.fields.values["_vendor"] == "acme-two")
        #expect(read.fields.values["_firmwareVersion"] == "2.0")
        #expect(read.modifiedAt == 4)
        // A credentials change keeps the fields and the status.
        try await store.updateThingCredentials(
            appID: appID, id: lamp, vendorThingID: "v-lamp-2", passwordHash: "newer-hash", at: 5)
        let again = try #require(try await store.thing(appID: appID, reference: .id(lamp)))
        #expect(again.disabled)
        #expect(again.vendorThingID == "v-lamp-2")
        #expect(again.fields == read.fields)
    }
}
