import Foundation
import Testing
import TopicGateAuthCore

/// The plugin's revocation set and the control messages that fill it.
@Suite("Plugin: revocations and control messages")
struct RevocationTests {
    @Test("A revocation holds until it expires, can be extended, and is pruned afterwards")
    func expiry() {
        let set = tg_revocations_new()!
        defer { tg_revocations_free(set) }
        #expect(tg_revocations_add(set, "dev-a", 200, 100))
        #expect(tg_revocations_contains(set, "dev-a", 100))
        #expect(tg_revocations_contains(set, "dev-a", 199))
        #expect(!tg_revocations_contains(set, "dev-a", 200))
        #expect(!tg_revocations_contains(set, "dev-b", 100))
        // Extending never shortens.
        #expect(tg_revocations_add(set, "dev-a", 500, 100))
        #expect(tg_revocations_add(set, "dev-a", 300, 100))
        #expect(tg_revocations_contains(set, "dev-a", 450))
        // Already expired: not added.
        _ = tg_revocations_add(set, "dev-old", 50, 100)
        #expect(!tg_revocations_contains(set, "dev-old", 100))
        #expect(tg_revocations_prune(set, 600) == 0)
        #expect(tg_revocations_count(set) == 0)
    }

    @Test("The revocation file's lines: written from the set, read back; expired and malformed lines skipped")
    func fileRoundTrip() {
        let set = tg_revocations_new()!
        defer { tg_revocations_free(set) }
        #expect(tg_revocations_add(set, "dev-a", 500, 100))
        #expect(tg_revocations_add(set, "dev-b", 900, 100))
        // What the plugin writes: one "<username> <expires_at>" line per live revocation.
        final class Lines { var text = "" }
        let lines = Lines()
        let visited = tg_revocations_each(
            set, 600,
            { username, expiresAt, context in
                let lines = Unmanaged<Lines>.fromOpaque(context!).takeUnretainedValue()
                lines.text += "\(String(cString: username!)) \(expiresAt)\n"
            }, Unmanaged.passUnretained(lines).toOpaque())
        #expect(visited == 1)
        #expect(lines.text == "dev-b 900\n")
        // Read back by a fresh set (a restarted broker), with lines it must skip.
        let restarted = tg_revocations_new()!
        defer { tg_revocations_free(restarted) }
        let file = "dev-a 500\n" + lines.text + "dev-c not-a-time\n+/# 999\nno-space\n\ndev-d 1000"
        let loaded = file.withCString { tg_revocations_load(restarted, $0, strlen($0), 600) }
        #expect(loaded == 2)
        #expect(tg_revocations_contains(restarted, "dev-b", 600))
        #expect(tg_revocations_contains(restarted, "dev-d", 600))
        #expect(!tg_revocations_contains(restarted, "dev-a", 600))
        #expect(!tg_revocations_contains(restarted, "dev-c", 600))
    }

    @Test("Many revocations: each is found, none is confused with another")
    func many() {
        let set = tg_revocations_new()!
        defer { tg_revocations_free(set) }
        for i in 0..<5000 { #expect(tg_revocations_add(set, "dev-\(i)", 1000 + Int64(i), 0)) }
        #expect(tg_revocations_count(set) == 5000)
        for i in stride(from: 0, to: 5000, by: 97) {
            #expect(tg_revocations_contains(set, "dev-\(i)", 0))
            #expect(!tg_revocations_contains(set, "dev-\(i)x", 0))
        }
        #expect(tg_revocations_prune(set, 3500) == 2499)
        #expect(!tg_revocations_contains(set, "dev-0", 3500))
        #expect(tg_revocations_contains(set, "dev-4999", 3500))
    }

    final class Kicked: @unchecked Sendable { var usernames: [String] = [] }

    func apply(_ json: String, to set: OpaquePointer, now: Int64 = 100, kicked: Kicked) -> Int32 {
        let bytes = Array(json.utf8)
        return bytes.withUnsafeBytes { raw in
            tg_control_apply(
                set, raw.baseAddress, raw.count, now,
                { username, context in
                    let box = Unmanaged<Kicked>.fromOpaque(context!).takeUnretainedValue()
                    box.usernames.append(String(cString: username!))
                }, Unmanaged.passUnretained(kicked).toOpaque())
        }
    }

    @Test("The gateway's revoke commands are applied and reported for kicking")
    func controlMessage() {
        let set = tg_revocations_new()!
        defer { tg_revocations_free(set) }
        let kicked = Kicked()
        let json =
            #"{"commands":[{"command":"revoke","username":"dev-a","expiresAt":900},"#
            + #"{"command":"explode","username":"dev-b","expiresAt":900},"#
            + ##"{"command":"revoke","username":"#","expiresAt":900},"## + #"{"command":"revoke","username":"dev-c"},"#
            + #"{"command":"revoke","username":"dev-d","expiresAt":901}]}"#
        #expect(apply(json, to: set, kicked: kicked) == 2)
        #expect(kicked.usernames == ["dev-a", "dev-d"])
        #expect(tg_revocations_contains(set, "dev-a", 899))
        #expect(!tg_revocations_contains(set, "dev-b", 100))
        #expect(!tg_revocations_contains(set, "#", 100))
    }

    @Test("The payload MQTTControlMessage builds is the one the plugin applies")
    func gatewayPayload() {
        let set = tg_revocations_new()!
        defer { tg_revocations_free(set) }
        let kicked = Kicked()
        let message = MQTTControlMessagePayload.revoking(["dev-1": 1000, "dev-2": 2000])
        #expect(apply(message, to: set, kicked: kicked) == 2)
        #expect(Set(kicked.usernames) == ["dev-1", "dev-2"])
        #expect(tg_revocations_contains(set, "dev-2", 1500))
        #expect(!tg_revocations_contains(set, "dev-1", 1500))
    }

    @Test(
        "Payloads that are not a command object are refused whole",
        arguments: [
            "", "null", "[]", "42", #"{"commands":5}"#, "{", #"{"commands":[1,2]"#,
        ])
    func refused(json: String) {
        let set = tg_revocations_new()!
        defer { tg_revocations_free(set) }
        let kicked = Kicked()
        let applied = apply(json, to: set, kicked: kicked)
        #expect(applied <= 0)
        #expect(kicked.usernames.isEmpty)
        #expect(tg_revocations_count(set) == 0)
    }
}
