import Testing
import TopicGateCore

@Suite("Presence reports from the broker plugin")
struct PresenceReportTests {
    @Test("Connected, disconnected and snapshot parts are read; anything else is not")
    func parsing() {
        func report(_ text: String) -> PresenceReport? { PresenceReport(payload: Array(text.utf8)) }
        #expect(report(#"{"connected":"abc"}"#) == .connected("abc"))
        // Changes keep their order; an entry without a sign or a name is skipped.
        #expect(
            report(#"{"changes":["+a","-b","+b","x","+",5]}"#)
                == .changes([
                    .init(username: "a", connected: true), .init(username: "b", connected: false),
                    .init(username: "b", connected: true),
                ]))
        #expect(report(#"{"disconnected":"abc"}"#) == .disconnected("abc"))
        #expect(
            report(#"{"snapshot":["a","b"],"part":2,"parts":3}"#)
                == .snapshot(usernames: ["a", "b"], part: 2, parts: 3))
        #expect(report(#"{"snapshot":[],"part":1,"parts":1}"#) == .snapshot(usernames: [], part: 1, parts: 1))
        #expect(report(#"{"snapshot":["a"],"part":4,"parts":3}"#) == nil)
        #expect(report(#"{"online":"abc"}"#) == nil)
        #expect(report("not json") == nil)
    }
}
