import Foundation
import HTTPTypes
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore

/// A sender cannot forge what a receiver reads as Kii's own (who sent a push, from where, which
/// push or command it is): a send whose `data` or `mqtt.data` carries one of those keys is
/// refused, whatever its `send*` flags say, and the device gets nothing of it.
@Suite("Pushes: forged Kii fields")
struct ForgedPushTests {
    static let flagsOff: [String: JSONValue] = Dictionary(
        uniqueKeysWithValues: ["sendSender", "sendWhen", "sendTopicID", "sendObjectScope", "sendAppID", "sendOrigin"]
            .map { ($0, JSONValue.bool(false)) })

    @Test("Every reserved key, in data or mqtt.data, with the send flags off or on: 400, and the device gets nothing")
    func reservedKeys() async throws {
        let world = try await PushWorld.started()
        let scene = try await world.subscribedMember()
        let device = try await world.connectedDevice(scene.endpoint)
        defer { device.shutdown() }
        let received = ReceivedMessages(device)
        // Written out, not taken from the code under test.
        let reserved = [
            "sender", "origin", "when", "topic", "appID", "objectScopeAppID", "objectScopeUserID",
            "objectScopeGroupID", "objectScopeThingID", "objectScopeType", "type", "bucketID", "bucketType",
            "objectID", "pushMessageID", "commandID",
        ]
        for key in reserved {
            var forged: [String: JSONValue] = ["msg": "forged"]
            forged[key] = .string(scene.member.id)
            for (shape, body) in [
                ("data, flags off", ["data": .object(forged)].merging(Self.flagsOff) { $1 }),
                ("data, flags on", ["data": .object(forged)]),
                ("mqtt.data", ["data": ["msg": "plain"], "mqtt": ["enabled": true, "data": .object(forged)]]),
            ] as [(String, [String: JSONValue])] {
                let reply = try await world.call(
                    .post, "\(scene.topic)/push/messages", token: scene.owner.token,
                    contentType: "application/vnd.kii.SendPushMessageRequest+json", json: .object(body))
                #expect(reply.status == .badRequest, "\(key) in \(shape): \(reply.status)")
                #expect(reply.object["errorCode"]?.stringValue == "INVALID_INPUT_DATA", "\(key) in \(shape)")
                #expect(reply.object["message"]?.stringValue?.contains("reserved") == true, "\(key) in \(shape)")
            }
        }
        // A genuine send with every flag off: the device gets it, with none of those fields.
        let genuine = try await world.call(
            .post, "\(scene.topic)/push/messages", token: scene.owner.token,
            contentType: "application/vnd.kii.SendPushMessageRequest+json",
            json: .object(["data": ["msg": "genuine"]].merging(Self.flagsOff) { $1 }))
        #expect(genuine.status == .created)
        let before = await received.before(marker: try await world.marker(to: scene.member))
        #expect(before?.count == 1, "only the genuine send arrived before the marker")
        let payload = before?.first?.object ?? [:]
        #expect(payload["msg"]?.stringValue == "genuine")
        #expect(payload["sender"] == nil && payload["appID"] == nil && payload["topic"] == nil)
        try await world.stop()
    }
}
