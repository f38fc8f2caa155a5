import Foundation
import MQTTBridge
import ProcessSupport
import TestSupport
import Testing
import TopicGateCore

/// The plugin's failure branches through a real Mosquitto: a broker with a bad secret does not
/// start; malformed control messages and fan-outs from the gateway's account change nothing and
/// break nothing; a revocation the plugin cannot save still holds while the broker runs.
@Suite("The broker plugin's failures, on a real Mosquitto")
struct PluginFailureTests {
    enum BadSecret: String, CaseIterable, Sendable {
        case missing, short, long
    }

    @Test(
        "A secret file that is missing, shorter than 32 bytes or longer than 1024: the broker does not start, and says why",
        arguments: BadSecret.allCases)
    func badSecret(_ bad: BadSecret) async throws {
        let broker = try BrokerProcess()
        defer { try? FileManager.default.removeItem(atPath: broker.directory) }
        switch bad {
        case .missing: try FileManager.default.removeItem(atPath: broker.secretFile)
        case .short: try "0123456789abcdef\n".write(toFile: broker.secretFile, atomically: true, encoding: .utf8)
        case .long:
            try String(repeating: "ab", count: 600).write(toFile: broker.secretFile, atomically: true, encoding: .utf8)
        }
        await #expect(throws: TestFailure.self) { try await broker.start() }
        let expected =
            switch bad {
            case .missing: "topicgate-auth: cannot read secret file \(broker.secretFile)"
            case .short: "is shorter than 32 bytes"
            case .long: "is longer than 1024 bytes"
            }
        #expect(broker.log.contains(expected), "\(broker.log)")
        // Nothing listens: no device could be let in with no secret to check it by.
        #expect(!TCPProbe.accepts(port: broker.port))
    }

    @Test(
        "Malformed control messages and fan-outs from the gateway's account revoke nobody, deliver nothing, and leave the broker serving"
    )
    func malformedMessages() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let devices = try await FanOutBrokerTests.devices(["dev-kept", "dev-other"], on: broker)
        let gateway = try broker.gatewayClient()
        defer {
            gateway.shutdown()
            for (device, _) in devices { device.shutdown() }
        }
        let answers = ReceivedMessages(gateway)
        try await gateway.connect(timeout: .seconds(5))
        try await gateway.subscribe(PresenceReport.topic)
        let far = UnixSeconds.wallClock.rawValue + 3600
        let controls = [
            "not json", "[]", #"{"commands":"revoke"}"#, #"{"commands":[{"command":"revoke"}]}"#,
            #"{"commands":[{"command":"revoke","username":42,"expiresAt":\#(far)}]}"#,
            #"{"commands":[{"command":"revoke","username":"dev-kept","expiresAt":"soon"}]}"#,
            #"{"commands":[{"command":"revoke","username":"dev-kept"#,
        ]
        for control in controls {
            try await gateway.publish(MQTTControlMessage.topic, payload: Array(control.utf8), timeout: .seconds(5))
        }
        let valid = MQTTFanOut(payload: Array("fanned".utf8), topics: ["dev-kept", "dev-other"]).bytes
        let fanOuts: [[UInt8]] = [
            [], [0xFF], Array(valid.dropLast(3)), Array(valid.prefix(6)), Array(repeating: 0x01, count: 64),
            // The version byte right, a payload length past the end.
            [valid[0], 0x7F, 0xFF, 0xFF, 0xFF] + Array("x".utf8),
        ]
        for fanOut in fanOuts {
            try await gateway.publish(MQTTFanOut.topic, payload: fanOut, timeout: .seconds(5))
        }
        // Markers, after everything above: a features request answered (the plugin went through
        // the control messages in order), then a valid fan-out and a message to each device.
        try await gateway.publish(
            MQTTControlMessage.topic, payload: MQTTControlMessage.presenceAndFeaturesRequest(nonce: "after42"))
        #expect(
            try await eventually {
                answers.all.contains { PluginFeatures(payload: $0.payload)?.nonce == "after42" }
            })
        try await gateway.publish(MQTTFanOut.topic, payload: valid, timeout: .seconds(5))
        for name in ["dev-kept", "dev-other"] { try await gateway.publish(name, payload: Array("marker".utf8)) }
        for (device, received) in devices {
            #expect(
                await received.before(marker: "marker")?.map(\.text) == ["fanned"], "\(device.configuration.clientID)")
            #expect(device.isConnected, "\(device.configuration.clientID) was kicked")
        }
        #expect(gateway.isConnected)
        #expect(broker.log.contains("topicgate-auth: refused a malformed fan-out"), "\(broker.log)")
        // Nobody was revoked: the kept device's credentials are let in again.
        devices[0].0.shutdown()
        let again = try broker.deviceClient("dev-kept")
        defer { again.shutdown() }
        try await again.connect(timeout: .seconds(5))
        try await broker.stop()
    }

    @Test(
        "A revocation the plugin cannot save (its file's place taken by a folder) still kicks and refuses, and says so")
    func unsavedRevocation() async throws {
        let broker = try BrokerProcess()
        try FileManager.default.createDirectory(
            atPath: broker.directory + "/revocations", withIntermediateDirectories: false)
        try await broker.start()
        let devices = try await FanOutBrokerTests.devices(["dev-revoked"], on: broker)
        let (device, _) = devices[0]
        let gateway = try broker.gatewayClient()
        defer {
            gateway.shutdown()
            device.shutdown()
        }
        try await gateway.connect(timeout: .seconds(5))
        let revoke = MQTTControlMessage(revoking: [.init(username: "dev-revoked", expiresAt: .wallClock + .seconds(60))]
        )
        try await gateway.publish(MQTTControlMessage.topic, payload: revoke.payload, timeout: .seconds(5))
        #expect(try await eventually { !device.isConnected })
        #expect(
            try await eventually { broker.log.contains("topicgate-auth: cannot save the revocations to") },
            "\(broker.log)")
        let again = try broker.deviceClient("dev-revoked")
        defer { again.shutdown() }
        let refusal = await #expect(throws: MQTTError.self) { try await again.connect(timeout: .seconds(5)) }
        #expect(refusal?.code == .connectionRefused && refusal?.returnCode == 5, "\(String(describing: refusal))")
        try await broker.stop()
    }
}
