import Foundation
import HTTPTypes
import Logging
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore
import TopicGateStore

@testable import TopicGateServer

/// A push the broker cannot take is refused when it is sent, and one that reaches the outbox
/// anyway (accepted before an upgrade, or failing for good) goes to the dead letters instead
/// of stopping every other delivery.
@Suite("Poison pushes", .serialized)
struct PoisonPushTests {
    static let huge = String(repeating: "x", count: 300_000)

    @Test("A send or a command larger than the broker's packet limit is refused with 400 naming the limit")
    func refusedAtAcceptance() async throws {
        let world = try await PushWorld.started()
        try await world.stopping {
            let scene = try await world.subscribedMember()
            let sent = try await world.call(
                .post, "\(scene.topic)/push/messages", token: scene.owner.token,
                contentType: "application/vnd.kii.SendPushMessageRequest+json",
                body: JSONWriter.string(["data": ["x": .string(Self.huge)]]))
            #expect(sent.status == .badRequest)
            #expect(sent.object["errorCode"] == "INVALID_INPUT_DATA")
            // docs/security.md: the broker's packet limit less 137 bytes, 262 007 by default.
            #expect(sent.object["maximumBytes"]?.intValue == 262_007)
            let thing = try await world.onboardThing("lamp-poison", owner: scene.owner)
            let command = try await world.call(
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
            try await world.push(scene.topic, token: scene.owner.token, message: "after")
            #expect(await received.wait(for: 1).first?.object["msg"] == "after")
            device.shutdown()
        }
    }

    @Test(
        "A push of exactly 262 007 bytes reaches the device through the embedded Mosquitto; one byte more is refused")
    func largestPushArrives() async throws {
        let world = try await PushWorld.started(embedded: true)
        try await world.stopping {
            let scene = try await world.subscribedMember()
            let device = try await world.connectedDevice(scene.endpoint)
            defer { device.shutdown() }
            let received = ReceivedMessages(device)
            // What the push adds around its message, measured on a small one: the same sender,
            // topic and field lengths (a push ID and a time of fixed length) in the large ones.
            try await world.push(scene.topic, token: scene.owner.token, message: "m")
            let small = try #require(await received.wait(for: 1).first)
            let around = small.payload.count - 1
            let largest = String(repeating: "x", count: 262_007 - around)
            let refused = try await world.send(scene.topic, token: scene.owner.token, message: largest + "x")
            #expect(refused.status == .badRequest, "\(refused.text)")
            #expect(refused.object["maximumBytes"]?.intValue == 262_007)
            #expect(refused.object["size"]?.intValue == 262_008)
            try await world.push(scene.topic, token: scene.owner.token, message: largest)
            let arrived = await received.wait(for: 2, timeout: .seconds(30))
            #expect(arrived.count == 2)
            #expect(arrived.last?.payload.count == 262_007)
            #expect(arrived.last?.object["msg"]?.stringValue == largest)
        }
    }

    @Test(
        "An oversized message already in the outbox becomes a dead letter; later pushes arrive; it survives no restart")
    func oversizedOutboxMessageIsDeadLettered() async throws {
        let world = try await PushWorld.started()
        try await world.stopping {
            let scene = try await world.subscribedMember()
            // A message accepted before the limit existed: written straight into the outbox of
            // the stopped gateway.
            _ = try await world.server.stop(signal: SIGTERM)
            let store = try await openStore(configuration: ServerConfiguration(dataDirectory: world.directory))
            try await store.enqueue([
                OutboxMessage(
                    id: "poison-1", appID: AppID(world.appID),
                    payload: JSONWriter.bytes(["x": .string(Self.huge)]), recipients: [.user(UserID(scene.member.id))],
                    acceptedAt: 1)
            ])
            try await world.server.start()
            let device = try await world.connectedDevice(scene.endpoint)
            let received = ReceivedMessages(device)
            try await world.push(scene.topic, token: scene.owner.token, message: "behind the poison")
            let messages = await received.wait(for: 1)
            #expect(messages.first?.object["msg"] == "behind the poison")
            #expect(messages.allSatisfy { $0.payload.count < 1000 })
            #expect(try await world.call(.get, "/ready").status == .ok)
            let admin = try await world.adminToken()
            let letters = try await world.call(.get, "\(world.app)/dead-letters", token: admin)
            #expect(letters.status == .ok)
            let first = letters.object["deadLetters"]?.arrayValue?.first?.objectValue
            #expect(first?["pushMessageID"] == "poison-1")
            #expect(first?["reason"]?.stringValue?.contains("max_packet_size") == true)
            #expect(
                try await world.call(.get, "\(world.app)/dead-letters", token: scene.owner.token).status == .forbidden)
            #expect(try await world.server.metricsText().contains("topicgate_dead_letters 1"))
            // The push behind it leaves the outbox once its broker answered the routing barrier,
            // which may come just after the device has it.
            #expect(try await eventually { try await store.pendingMessageCount() == 0 })
            device.shutdown()
        }
    }
}
