import Testing
import TopicGateCore

@testable import TopicGateServer

@Suite("Device presence from the plugins' reports")
struct DevicePresenceTests {
    @Test("Connects and disconnects move a device; a snapshot replaces what was known of its broker only")
    func reports() {
        let presence = DevicePresence()
        presence.record(.connected("a"), broker: "b0", at: 100)
        presence.record(.connected("b"), broker: "b0", at: 110)
        presence.record(.connected("c"), broker: "b1", at: 120)
        #expect(presence.status("a") == .init(online: true, lastSeen: 100))
        presence.record(.disconnected("a"), broker: "b0", at: 200)
        #expect(presence.status("a") == .init(online: false, lastSeen: 200))
        #expect(presence.status("never") == .init(online: false, lastSeen: nil))
        // A device that moved to b1 stays online when b0 reports its old session's end.
        presence.record(.connected("b"), broker: "b1", at: 210)
        presence.record(.disconnected("b"), broker: "b0", at: 220)
        #expect(presence.status("b").online)

        // b0 restarted and reports, in two parts, that only "d" and "e" are connected.
        presence.record(.connected("x"), broker: "b0", at: 250)
        presence.record(.snapshot(usernames: ["d"], part: 1, parts: 2), broker: "b0", at: 300)
        #expect(presence.status("x").online)
        presence.record(.snapshot(usernames: ["e"], part: 2, parts: 2), broker: "b0", at: 310)
        #expect(presence.status("x") == .init(online: false, lastSeen: 310))
        #expect(presence.status("d") == .init(online: true, lastSeen: 310))
        #expect(presence.status("e").online)
        // b1's devices were not touched.
        #expect(presence.status("c").online && presence.status("b").online)
        #expect(presence.onlineCount == 4)
    }

    @Test(
        "Online devices are counted per app once their apps are found; the times devices went offline wait to be written"
    )
    func perApp() {
        let presence = DevicePresence()
        for (username, at) in [("a", 100), ("b", 110), ("c", 120), ("stray", 130)] {
            presence.record(.connected(username), broker: "b0", at: UnixMillis(Int64(at)))
        }
        #expect(presence.onlineCount(appID: AppID("app1")) == 0)
        let unresolved = presence.takeUnresolved(limit: 3)
        #expect(unresolved.count == 3)
        presence.putBackUnresolved(unresolved)  // the lookup failed: tried again
        var all = presence.takeUnresolved(limit: 500)
        #expect(Set(all) == ["a", "b", "c", "stray"])
        // "stray" belongs to no installation.
        presence.resolve(all, apps: ["a": AppID("app1"), "b": AppID("app1"), "c": AppID("app2")])
        #expect(presence.onlineCount(appID: AppID("app1")) == 2)
        #expect(presence.onlineCount(appID: AppID("app2")) == 1)
        #expect(presence.onlineCount == 4)
        presence.record(.disconnected("a"), broker: "b0", at: 200)
        #expect(presence.onlineCount(appID: AppID("app1")) == 1)
        // A device that comes back keeps its app (an installation's username stays in its app);
        // one that belongs to no installation is looked up again.
        presence.record(.connected("a"), broker: "b0", at: 210)
        #expect(presence.onlineCount(appID: AppID("app1")) == 2)
        presence.record(.disconnected("stray"), broker: "b0", at: 205)
        presence.record(.connected("stray"), broker: "b0", at: 206)
        all = presence.takeUnresolved(limit: 500)
        #expect(all == ["stray"])
        // With one app, every device is counted for it without a lookup.
        presence.resolveAll(all, to: AppID("app2"))
        #expect(presence.onlineCount(appID: AppID("app2")) == 2)

        // Only going offline is written: while online, every gateway knows the device.
        #expect(presence.takeUnsaved() == ["a": 200, "stray": 205])
        #expect(presence.takeUnsaved().isEmpty)
        #expect(presence.status("b") == .init(online: true, lastSeen: 110))
        presence.record(.disconnected("b"), broker: "b0", at: 300)
        presence.restoreUnsaved(["b": 250, "c": 260])
        #expect(presence.takeUnsaved() == ["b": 300, "c": 260])
        // A device found gone from a snapshot went offline too.
        presence.record(.snapshot(usernames: ["a"], part: 1, parts: 1), broker: "b0", at: 400)
        #expect(presence.takeUnsaved() == ["c": 400, "stray": 400])
        // What was written before this gateway saw the device counts as last seen.
        #expect(presence.status("z", recorded: 50) == .init(online: false, lastSeen: 50))
        #expect(presence.status("b", recorded: 50) == .init(online: false, lastSeen: 300))
    }
}
