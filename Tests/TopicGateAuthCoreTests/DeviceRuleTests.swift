import Testing
import TopicGateAuthCore

/// The broker-side isolation rule, `tg_device_may`: a device reads only its own topic and
/// writes only `<topic>/state`.
@Suite("Plugin: the device rule")
struct DeviceRuleTests {
    let device = "dev-abc_1.x"

    func may(_ access: tg_access, _ topic: String, as username: String? = nil) -> Bool {
        tg_device_may(username ?? device, access, topic)
    }

    @Test("A device subscribes to and receives its own topic, and publishes only its state")
    func ownTopic() {
        #expect(may(TG_ACCESS_SUBSCRIBE, device))
        #expect(may(TG_ACCESS_READ, device))
        #expect(may(TG_ACCESS_WRITE, device + "/state"))
        #expect(may(TG_ACCESS_UNSUBSCRIBE, "anything"))
        // Publishing to its own push topic would let a device forge pushes to itself.
        #expect(!may(TG_ACCESS_WRITE, device))
        #expect(!may(TG_ACCESS_SUBSCRIBE, device + "/state"))
        #expect(!may(TG_ACCESS_READ, device + "/state"))
    }

    @Test(
        "Wildcards, $SYS, $CONTROL and other devices' topics are denied",
        arguments: [
            "#", "+", "+/state", "dev-abc_1.x/#", "dev-abc_1.x/+", "dev-+", "$SYS/#", "$SYS/broker/clients/total",
            "$CONTROL/topicgate/v1", "dev-other", "dev-other/state", "", "dev-abc_1.x ", "DEV-ABC_1.X", "dev-abc_1.",
        ])
    func denied(topic: String) {
        #expect(!may(TG_ACCESS_SUBSCRIBE, topic))
        #expect(!may(TG_ACCESS_READ, topic))
        #expect(!may(TG_ACCESS_WRITE, topic))
    }

    @Test(
        "Invalid usernames never pass, not even for their 'own' topic",
        arguments: [
            "", "#", "+", "a/b", "$SYS", "a b", "a\u{1}", String(repeating: "a", count: 129),
        ])
    func invalidUsernames(username: String) {
        #expect(!tg_username_valid(username))
        #expect(!tg_device_may(username, TG_ACCESS_SUBSCRIBE, username))
        #expect(!tg_device_may(username, TG_ACCESS_READ, username))
        #expect(!tg_device_may(username, TG_ACCESS_WRITE, username + "/state"))
    }

    @Test("Valid usernames: our topic format and the longest allowed")
    func validUsernames() {
        #expect(tg_username_valid("tg-0f1e2d3c4b5a69788796a5b4c3d2e1f0"))
        #expect(tg_username_valid(String(repeating: "a", count: 128)))
        #expect(tg_username_valid("A.b-C_9"))
    }

    @Test("An unknown access bit is denied")
    func unknownAccess() {
        #expect(!tg_device_may(device, tg_access(rawValue: 0x10), device))
        #expect(!tg_device_may(device, tg_access(rawValue: 0), device))
    }
}
