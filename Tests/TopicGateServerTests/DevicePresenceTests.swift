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
}
