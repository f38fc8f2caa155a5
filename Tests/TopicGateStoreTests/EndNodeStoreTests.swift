import Foundation
import Testing
import TopicGateCore
import TopicGateStore

/// Gateways and their end nodes on each engine: attaching (and moving), paging, connection
/// reports, and the attachment going with either thing.
@Suite("Store: gateways and end nodes")
struct EndNodeStoreTests {
    let appID = AppID("app1")

    func thing(_ id: String) -> Thing {
        Thing(
            id: ThingID(id), appID: appID, vendorThingID: "v-\(id)", passwordHash: "h", fields: ThingFields(),
            createdAt: 1, modifiedAt: 1)
    }

    @Test(
        "Attach, page, report, move to another gateway, detach; deleting a gateway frees its end nodes",
        arguments: StoreEngine.allCases)
    func endNodes(_ engine: StoreEngine) async throws {
        let store = try await engine.newStore(appID: appID)
        for id in ["gw1", "gw2", "en1", "en2", "en3"] { try await store.insertThing(thing(id)) }
        let (gw1, gw2) = (ThingID("gw1"), ThingID("gw2"))
        for id in ["en3", "en1", "en2"] {
            #expect(try await store.attachEndNode(appID: appID, gateway: gw1, endNode: ThingID(id), at: 10))
        }
        #expect(try await !store.attachEndNode(appID: appID, gateway: gw1, endNode: ThingID("en1"), at: 11))
        var seen: [String] = []
        var key: String?
        repeat {
            let page = try await store.endNodes(appID: appID, gateway: gw1, limit: 2, after: key)
            seen += page.endNodes.map(\.id.rawValue)
            #expect(page.endNodes.allSatisfy { $0.vendorThingID == "v-\($0.id.rawValue)" && $0.gateway == gw1 })
            key = page.next
        } while key != nil
        #expect(seen == ["en1", "en2", "en3"])

        #expect(try await store.endNode(appID: appID, id: ThingID("en1"))?.online == nil)
        #expect(
            try await store.setEndNodeConnection(
                appID: appID, gateway: gw1, endNode: ThingID("en1"), online: true, at: 20))
        #expect(
            try await !store.setEndNodeConnection(
                appID: appID, gateway: gw2, endNode: ThingID("en1"), online: false, at: 21))
        let reported = try await store.endNode(appID: appID, id: ThingID("en1"))
        #expect(reported?.online == true && reported?.onlineModifiedAt == 20)

        // Moved: the other gateway has it now, and its old report is forgotten.
        #expect(try await store.attachEndNode(appID: appID, gateway: gw2, endNode: ThingID("en1"), at: 30))
        let moved = try await store.endNode(appID: appID, id: ThingID("en1"))
        #expect(moved?.gateway == gw2 && moved?.online == nil)
        #expect(try await !store.detachEndNode(appID: appID, gateway: gw1, endNode: ThingID("en1")))
        #expect(try await store.detachEndNode(appID: appID, gateway: gw2, endNode: ThingID("en1")))
        #expect(try await store.endNode(appID: appID, id: ThingID("en1")) == nil)

        _ = try await store.deleteThing(appID: appID, id: ThingID("en2"))
        #expect(
            try await store.endNodes(appID: appID, gateway: gw1, limit: 10, after: nil).endNodes.map(\.id) == [
                ThingID("en3")
            ])
        _ = try await store.deleteThing(appID: appID, id: gw1)
        #expect(try await store.endNode(appID: appID, id: ThingID("en3")) == nil)
        #expect(try await store.thing(appID: appID, reference: .id(ThingID("en3"))) != nil)
    }
}
