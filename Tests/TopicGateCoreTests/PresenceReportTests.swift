import Testing

@testable import TopicGateCore

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
        // As the plugin writes them (read straight from the bytes), and written otherwise.
        let plain = #"{"changes":["+a","-b","+ü"]}"#
        #expect(PresenceReport.plainChanges(Array(plain.utf8)) != nil)
        #expect(
            report(plain)
                == .changes([
                    .init(username: "a", connected: true), .init(username: "b", connected: false),
                    .init(username: "ü", connected: true),
                ]))
        #expect(report(#"{"changes":[]}"#) == .changes([]))
        for other in [#"{ "changes": ["+a"] }"#, #"{"changes":["+\u0061"]}"#, #"{"changes":["+a"],"more":1}"#] {
            #expect(PresenceReport.plainChanges(Array(other.utf8)) == nil)
            #expect(report(other) == .changes([.init(username: "a", connected: true)]))
        }
        for broken in [#"{"changes":["+a""#, #"{"changes":["+a",]}"#, #"{"changes":[""#] {
            #expect(PresenceReport.plainChanges(Array(broken.utf8)) == nil)
        }
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
