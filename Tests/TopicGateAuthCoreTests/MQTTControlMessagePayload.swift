import MQTTBridge
import TopicGateCore

/// Builds control payloads through the gateway's own `MQTTControlMessage`.
enum MQTTControlMessagePayload {
    static func revoking(_ expiries: [String: Int64]) -> String {
        let message = MQTTControlMessage(
            revoking: expiries.sorted { $0.key < $1.key }.map {
                MQTTControlMessage.Revocation(username: $0.key, expiresAt: UnixSeconds($0.value))
            })
        return String(decoding: message.payload, as: UTF8.self)
    }
}
