import Testing
import TopicGateCore

@Suite("Push message bodies and payloads")
struct PushMessageTests {
    @Test("A Kii SDK body is accepted; mqtt.data replaces data on MQTT")
    func sdkBody() throws {
        let request = try PushMessageRequest(body: [
            "data": ["msg": "hi", "n": 1], "gcm": ["enabled": true], "apns": ["enabled": false],
            "mqtt": ["enabled": true, "data": ["m": "mq"]], "sendSender": false,
        ])
        #expect(request.mqttData == ["m": "mq"])
        #expect(!request.flags.contains("sendSender"))
    }

    @Test("Nested data, a missing data object and non-boolean flags are INVALID_INPUT_DATA")
    func invalid() {
        for body: [String: JSONValue] in [
            [:], ["data": "x"], ["data": ["a": ["b": 1]]], ["data": [:], "gcm": ["enabled": "yes"]],
            ["data": [:], "mqtt": 3], ["data": [:], "sendWhen": "no"],
        ] {
            #expect(throws: KiiError.self) { try PushMessageRequest(body: body) }
        }
    }

    @Test("The payload carries the data at the first level, Kii's fields and the message ID")
    func payload() throws {
        let message = PushMessage(
            id: "m1", appID: AppID("app"), topic: TopicAddress(parsing: "group/g1/chat")!, sender: .user(UserID("u1")),
            sentAt: 42, request: try PushMessageRequest(body: ["data": ["msg": "hi"]]))
        #expect(
            message.mqttPayload == [
                "msg": "hi", "sender": "u1", "topic": "chat", "when": 42, "appID": "app", "origin": "EXPLICIT",
                "objectScopeAppID": "app", "objectScopeType": "APP_AND_GROUP", "objectScopeGroupID": "g1",
                "pushMessageID": "m1",
            ])
    }
}
