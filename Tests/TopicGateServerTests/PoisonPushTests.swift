import Foundation
import HTTPTypes
import MQTTBridge
import Testing
import TestSupport
import Logging
import TopicGateCore
@testable import TopicGateServer
import TopicGateStore

/// A push the broker cannot take is refused when it is sent, and one that reaches the outbox
/// anyway (accepted before an upgrade, or failing for good) goes to the dead letters instead
/// of stopping every other delivery.
@Suite("Poison pushes", .serialized)
struct PoisonPushTests {
    static let huge = String(repeating: "x", count: 300_000)

    @Test("A send or a command larger than the broker's packet limit is refused with 400 naming the limit")
    func refusedAtAcceptance() async throws {
        let world = try await PushWorld.started()
        do {
            let scene = try await world.subscribedMember()
            let sent = try await world.request(
                .post, "\(scene.topic)/push/messages", token: scene.owner.token,
                contentType: "application/vnd.kii.SendPushMessageRequest+json",
                body: JSONWriter.string(["data": ["x": .string(Self.huge)]]))
            #expect(sent.status == .badRequest)
            #expect(sent.object["errorCode"] == "INVALID_INPUT_DATA")
            #expect(sent.object["maximumBytes"]?.intValue == Int64(PushSizeLimit(maximumPacketSize: 262_144).maximumPayloadBytes))
            let thing = try await world.onboardThing("lamp-poison", owner: scene.owner)
            let command = try await world.request(
                .post, "/thing-if/apps/\(world.appID)/targets/thing:\(thing.id)/commands", token: scene.owner.token,
                contentType: "application/vnd.kii.CommandCreationRequest+json",
                body: JSONWriter.string([
                    "issuer": .string("user:\(scene.owner.id)"),
                    "actions": [["Lamp": [["say": .string(Self.huge)]]]],
                ]))
            #expect(command.status == .badRequest)
            #expect(command.object["maximumBytes"] != nil)
            // Nothing reached the outbox, and delivery goes on.
            let device = try await world.connectedDevice(scene.endpoint)
            let received = ReceivedMessages(device)
            try await world.send(scene.topic, token: scene.owner.token, message: "after")
            #expect(await received.wait(for: 1).first?.object["msg"] == "after")
            device.shutdown()
        } catch {
            try await world.stop()
            throw error
        }
        try await world.stop()
    }

    @Test("An oversized message already in the outbox becomes a dead letter; later pushes arrive; it survives no restart")
    func oversizedOutboxMessageIsDeadLettered() async throws {
        let world = try await PushWorld.started()
        do {
            let scene = try await world.subscribedMember()
            // A message accepted before the limit existed: written straight into the outbox of
            // the stopped gateway.
            _ = try await world.server.stop(signal: SIGTERM)
            let store = try openStore(configuration: ServerConfiguration(dataDirectory: world.directory))
            try await store.enqueue([
                OutboxMessage(
                    id: "poison-1", appID: AppID(world.appID),
                    payload: JSONWriter.bytes(["x": .string(Self.huge)]), recipients: [.user(UserID(scene.member.id))],
                    acceptedAt: 1)
            ])
            try await world.server.start()
            let device = try await world.connectedDevice(scene.endpoint)
            let received = ReceivedMessages(device)
            try await world.send(scene.topic, token: scene.owner.token, message: "behind the poison")
            let messages = await received.wait(for: 1)
            #expect(messages.first?.object["msg"] == "behind the poison")
            #expect(messages.allSatisfy { $0.payload.count < 1000 })
            #expect(try await world.request(.get, "/ready").status == .ok)
            let admin = try await world.adminToken()
            let letters = try await world.request(.get, "\(world.app)/dead-letters", token: admin)
            #expect(letters.status == .ok)
            let first = letters.object["deadLetters"]?.arrayValue?.first?.objectValue
            #expect(first?["pushMessageID"] == "poison-1")
            #expect(first?["reason"]?.stringValue?.contains("max_packet_size") == true)
            #expect(try await world.request(.get, "\(world.app)/dead-letters", token: scene.owner.token).status == .forbidden)
            #expect(try await world.server.metricsText().contains("topicgate_dead_letters 1"))
            #expect(try await store.pendingMessageCount() == 0)
            device.shutdown()
        } catch {
            try await world.stop()
            throw error
        }
        try await world.stop()
    }
}

/// The delivery service's isolation rules with a link that never acknowledges one payload.
@Suite("Push delivery isolation")
struct PushDeliveryIsolationTests {
    /// Acknowledges every payload but those containing "poison", and remembers what it took.
    final class PickyLink: DeviceLink, @unchecked Sendable {
        // @unchecked: the delivery service calls it from one task at a time.
        var delivered: [String] = []
        var isReady: Bool { true }

        func deliver(_ publications: [DevicePublication]) async -> [Int: DeliveryFailure] {
            var failures: [Int: DeliveryFailure] = [:]
            for (index, publication) in publications.enumerated() {
                let text = String(decoding: publication.payload, as: UTF8.self)
                if text.contains("poison") { failures[index] = .unacknowledged } else { delivered.append(text) }
            }
            return failures
        }

        func revoke(_ installations: [Installation]) async {}
    }

    @Test("A message that keeps failing is tried alone, then dead-lettered after three attempts; the others are delivered")
    func isolation() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tg-iso-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try openStore(configuration: ServerConfiguration(dataDirectory: directory))
        let (app, _) = try await AppRegistry(store: store).defaultApp()
        let user = User(id: UserID("u1"), appID: app.id, createdAt: 1, modifiedAt: 1)
        try await store.insertUser(user)
        try await store.insertInstallation(
            Installation(
                id: InstallationID("i1"), appID: app.id, principal: .user(user.id), deviceType: "MQTT",
                registrationID: "i1", mqttTopic: "topic-1", development: false, createdAt: 1, tokenHash: nil))
        func message(_ id: String, _ text: String) -> OutboxMessage {
            OutboxMessage(id: id, appID: app.id, payload: Array(text.utf8), recipients: [.user(user.id)], acceptedAt: 1)
        }
        try await store.enqueue([message("a", "poison"), message("b", "fine-1"), message("c", "fine-2")])
        let link = PickyLink()
        let service = PushDeliveryService(
            store: store, link: link, wakeup: Wakeup(), time: .system, logger: Logger(label: "test"), metrics: ServerMetrics())
        var outcomes: [PushDeliveryService.Outcome] = []
        for _ in 0..<4 { outcomes.append(await service.deliverBatch()) }
        #expect(outcomes == [.failed, .failed, .more, .idle])
        #expect(link.delivered == ["fine-1", "fine-2"])
        #expect(try await store.pendingMessageCount() == 0)
        let letters = try await store.deadLetters(appID: app.id, limit: 10, before: nil)
        #expect(letters.map(\.letter.message.id) == ["a"])
        #expect(letters.first?.letter.message.attempts == 3)
        #expect(letters.first?.letter.reason.contains("3 attempts") == true)
    }
}
