import Foundation
import Logging
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore
import TopicGateStore

@testable import TopicGateServer

/// The gateway's link to a real broker: fan-outs once the plugin says, on this connection, that
/// it takes them; a PUBLISH per device otherwise; either way every device has its push.
@Suite("Broker link: fan-outs")
struct BrokerLinkFanOutTests {
    /// How long a step may take: under the whole suite's load on two cores a link's connect and
    /// the plugin's answer took more than 10 s; a link that never fans out still fails.
    static let patience: Duration = .seconds(120)

    /// A link to `broker`, running until the returned task is cancelled; the devices' states go
    /// to `states`.
    static func link(
        to broker: BrokerProcess, states: (@Sendable (MQTTMessage) async -> Void)? = nil
    ) throws -> (BrokerLink, Task<Void, any Error>) {
        let path = TestFolder.url.appendingPathComponent(
            "fanout-\(UUID().uuidString)/db.sqlite"
        )
        .path
        try MigratedSQLite.place(at: path)
        let link = try BrokerLink(
            address: BrokerAddress(
                name: "", host: "127.0.0.1", port: broker.port, publicHost: "127.0.0.1",
                publicPorts: MQTTPorts(tcp: broker.port, ssl: 0, ws: 0, wss: 0)),
            configuration: PushConfiguration(
                broker: .external(host: "127.0.0.1", port: broker.port), secretFile: broker.secretFile,
                advertisedHost: "127.0.0.1"),
            signer: broker.signer, store: try SQLiteStore(path: path), time: .system,
            logger: Logger(label: "test"), onConnected: {})
        if let states { link.receiveStates(states) }
        return (link, Task { try await link.run() })
    }

    /// Devices connected to `broker` and subscribed to their own topics, each with what it receives.
    static func devices(_ names: [String], on broker: BrokerProcess, cleanSession: Bool = true) async throws
        -> [(MQTTClient, ReceivedMessages)]
    {
        var devices: [(MQTTClient, ReceivedMessages)] = []
        for name in names {
            let device = try broker.deviceClient(name, cleanSession: cleanSession)
            devices.append((device, ReceivedMessages(device)))
            try await device.connect(timeout: .seconds(5))
            try await device.subscribe(name)
        }
        return devices
    }

    static func publications(_ text: String, to topics: [String]) -> [DevicePublication] {
        let payload = Array(text.utf8)
        return topics.map { DevicePublication(topic: $0, payload: payload) }
    }

    /// Publishes `text` to `topics` through `link`: whether the broker acknowledged every copy,
    /// and whether the link then said they are routed (once a barrier sent after the
    /// acknowledgements was answered).
    static func settle(_ text: String, to topics: [String], through link: BrokerLink) async -> (
        acknowledged: Bool, routed: Bool
    ) {
        let pending = link.start(publications(text, to: topics))
        let acknowledged = await pending.failures().isEmpty
        let routed = await withCheckedContinuation { continuation in
            pending.whenRouted { continuation.resume(returning: $0) }
        }
        return (acknowledged, routed)
    }

    @Test(
        "Routing barriers hold no message ID once answered: after 300 fan-outs, each settled behind a barrier, the link holds none (65 535 held would fail every publication)"
    )
    func barriersReleaseTheirIDs() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let names = (0..<3).map { "dev-barrier-\($0)" }
        let devices = try await Self.devices(names, on: broker)
        let (link, running) = try Self.link(to: broker)
        defer {
            running.cancel()
            for (device, _) in devices { device.shutdown() }
        }
        #expect(try await eventually(timeout: Self.patience) { link.fansOut })
        let rounds = 300
        for round in 0..<rounds {
            let (acknowledged, routed) = await Self.settle("round \(round)", to: names, through: link)
            #expect(acknowledged && routed, "round \(round): acknowledged \(acknowledged), routed \(routed)")
        }
        for (_, received) in devices { #expect(await received.wait(for: rounds).count == rounds) }
        #expect(
            try await eventually(timeout: Self.patience) { link.client.messageIDsHeld == 0 },
            "\(link.client.messageIDsHeld) message IDs still held after \(rounds) settled fan-outs")
    }

    @Test("With TopicGate's plugin: fan-outs from the plugin's answer on, again after the broker restarts")
    func fansOut() async throws {
        let broker = try BrokerProcess()
        try await broker.start()
        let names = (0..<30).map { "dev-link-\($0)" }
        let devices = try await Self.devices(names, on: broker, cleanSession: false)
        let (link, running) = try Self.link(to: broker)
        defer {
            running.cancel()
            for (device, _) in devices { device.shutdown() }
        }
        #expect(try await eventually(timeout: Self.patience) { link.fansOut })
        #expect(await link.start(Self.publications("first", to: names)).failures().isEmpty)
        for (_, received) in devices { await received.wait(for: 1) }
        try await broker.stop()
        #expect(try await eventually(timeout: Self.patience) { !link.isReady && !link.fansOut })
        try await broker.start()
        #expect(try await eventually(timeout: Self.patience) { link.fansOut })
        #expect(await link.start(Self.publications("second", to: names)).failures().isEmpty)
        for (device, received) in devices {
            // At least once: a PUBACK the broker had not read when it stopped brings "first" again
            // (under load, before "second": waiting for two messages alone would miss it).
            let beforeSecond = await received.before(marker: "second", timeout: Self.patience)?.map(\.text)
            let texts = received.all.map(\.text)
            #expect(
                beforeSecond?.isEmpty == false && beforeSecond?.allSatisfy { $0 == "first" } == true,
                "\(device.configuration.clientID): \(texts)")
            #expect(
                texts.filter { $0 == "second" } == ["second"] && texts.last == "second",
                "\(device.configuration.clientID): \(texts)")
        }
        #expect(broker.log.contains("refused a malformed fan-out") == false)
    }

    @Test("A broker whose plugin never answers: a PUBLISH per device, every device has it")
    func withoutAnswer() async throws {
        let broker = try BrokerProcess(loadsPlugin: false)
        try await broker.start()
        let names = (0..<5).map { "dev-plain-\($0)" }
        let devices = try await Self.devices(names, on: broker)
        let (link, running) = try Self.link(to: broker)
        defer {
            running.cancel()
            for (device, _) in devices { device.shutdown() }
        }
        // Ready only once the plugin answered what it does or had its time to (BrokerLink's
        // featuresGrace): no answer can come later and turn fan-outs on.
        #expect(try await eventually(timeout: Self.patience) { link.isReady })
        #expect(!link.fansOut)
        #expect(await link.start(Self.publications("plain", to: names)).failures().isEmpty)
        for (_, received) in devices { #expect(await received.wait(for: 1).map(\.text) == ["plain"]) }
    }
}
