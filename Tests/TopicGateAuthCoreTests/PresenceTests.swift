import Foundation
import Testing
import TopicGateAuthCore

/// The plugin's table of connected devices: sessions by client, usernames online while they
/// have one.
@Suite("Plugin: presence")
struct PresenceTests {
    /// A stand-in for the broker's client pointer.
    static func client(_ n: Int) -> UnsafeRawPointer { UnsafeRawPointer(bitPattern: 0x1000 + n * 16)! }

    static func disconnect(_ presence: OpaquePointer, _ client: UnsafeRawPointer) -> (Int32, String) {
        var name = [CChar](repeating: 0, count: 129)
        let remaining = tg_presence_disconnect(presence, client, &name, name.count)
        return (remaining, String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    @Test("A device is online from its first session to the end of its last; a takeover keeps it online")
    func sessions() {
        let presence = tg_presence_new()!
        defer { tg_presence_free(presence) }
        #expect(tg_presence_connect(presence, Self.client(1), "dev-a") == 1)
        #expect(tg_presence_online(presence) == 1)
        // The same client authenticating again changes nothing.
        #expect(tg_presence_connect(presence, Self.client(1), "dev-a") == 0)
        // A takeover: the new session first, then the old one ends.
        #expect(tg_presence_connect(presence, Self.client(2), "dev-a") == 2)
        #expect(Self.disconnect(presence, Self.client(1)) == (1, "dev-a"))
        #expect(tg_presence_online(presence) == 1)
        #expect(Self.disconnect(presence, Self.client(2)) == (0, "dev-a"))
        #expect(tg_presence_online(presence) == 0)
    }

    @Test("Only a device online with clean sessions only needs no save: offline, persistent or mixed, it does")
    func cleanSessions() {
        let presence = tg_presence_new()!
        defer { tg_presence_free(presence) }
        #expect(!tg_presence_only_clean(presence, "dev-a"))
        _ = tg_presence_connect(presence, Self.client(1), "dev-a")
        #expect(!tg_presence_only_clean(presence, "dev-a"))
        tg_presence_mark_clean(presence, Self.client(1))
        tg_presence_mark_clean(presence, Self.client(1))
        #expect(tg_presence_only_clean(presence, "dev-a"))
        // A persistent session taking over: not clean only until the clean one is gone and back.
        _ = tg_presence_connect(presence, Self.client(2), "dev-a")
        #expect(!tg_presence_only_clean(presence, "dev-a"))
        _ = Self.disconnect(presence, Self.client(2))
        #expect(tg_presence_only_clean(presence, "dev-a"))
        _ = Self.disconnect(presence, Self.client(1))
        #expect(!tg_presence_only_clean(presence, "dev-a"))
        // Marking a client that never authenticated changes nothing.
        tg_presence_mark_clean(presence, Self.client(9))
        #expect(tg_presence_online(presence) == 0)
    }

    @Test("A client that never authenticated here (a refused CONNECT with a device's name) changes nothing")
    func strangers() {
        let presence = tg_presence_new()!
        defer { tg_presence_free(presence) }
        #expect(tg_presence_connect(presence, Self.client(1), "dev-a") == 1)
        #expect(Self.disconnect(presence, Self.client(9)).0 == -1)
        #expect(tg_presence_online(presence) == 1)
    }

    @Test("Thousands of devices: each is counted once and listed once")
    func many() {
        let presence = tg_presence_new()!
        defer { tg_presence_free(presence) }
        for i in 0..<5000 { #expect(tg_presence_connect(presence, Self.client(i), "dev-\(i)") == 1) }
        for i in stride(from: 0, to: 5000, by: 2) {
            #expect(Self.disconnect(presence, Self.client(i)) == (0, "dev-\(i)"))
        }
        #expect(tg_presence_online(presence) == 2500)
        final class Names { var all: Set<String> = [] }
        let names = Names()
        let listed = tg_presence_each(
            presence,
            { username, context in
                Unmanaged<Names>.fromOpaque(context!).takeUnretainedValue().all.insert(String(cString: username!))
            }, Unmanaged.passUnretained(names).toOpaque())
        #expect(listed == 2500)
        #expect(names.all == Set(stride(from: 1, to: 5000, by: 2).map { "dev-\($0)" }))
    }
}

/// The plugin's presence changes gathered for one message.
@Suite("Plugin: presence changes")
struct PresenceChangesTests {
    @Test("Changes are written in order as one JSON message; invalid usernames are skipped; cleared, nothing is left")
    func gathered() throws {
        let changes = tg_changes_new()!
        defer { tg_changes_free(changes) }
        #expect(tg_changes_text(changes) == nil)
        #expect(tg_changes_add(changes, true, "dev-a") == 1)
        #expect(tg_changes_add(changes, false, "dev/b") == 1)
        #expect(tg_changes_add(changes, false, "dev-a") == 2)
        #expect(String(cString: try #require(tg_changes_text(changes))) == #"{"changes":["+dev-a","-dev-a"]}"#)
        tg_changes_clear(changes)
        #expect(tg_changes_count(changes) == 0 && tg_changes_text(changes) == nil)
        // Many, with the longest usernames: the buffer grows and the text stays whole.
        let long = String(repeating: "n", count: 127)
        for i in 0..<600 { #expect(tg_changes_add(changes, i % 2 == 0, "\(long)\(i % 10)") == i + 1) }
        let text = String(cString: try #require(tg_changes_text(changes)))
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: [String]]
        #expect(object?["changes"]?.count == 600)
        #expect(object?["changes"]?.last == "-\(long)9")
    }
}
