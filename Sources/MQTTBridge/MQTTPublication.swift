/// A message handed to libmosquitto, whose broker acknowledgement can be awaited.
public struct MQTTPublication: Sendable {
    let client: MQTTClient
    public let messageID: Int32
    public let topic: String
    public let qos: MQTTQoS

    /// The bytes of the PUBLISH packet that carries `payloadCount` bytes to `topic`: fixed
    /// header (type and remaining length), topic, packet ID (QoS 1 and 2), payload. A broker
    /// compares this with its `max_packet_size`.
    public static func packetSize(topic: String, payloadCount: Int, qos: MQTTQoS = .atLeastOnce) -> Int {
        let remaining = 2 + topic.utf8.count + (qos == .atMostOnce ? 0 : 2) + payloadCount
        var lengthBytes = 1
        var rest = remaining >> 7
        while rest > 0 {
            lengthBytes += 1
            rest >>= 7
        }
        return 1 + lengthBytes + remaining
    }

    /// Returns when the broker acknowledged the message (immediately for QoS 0); throws
    /// `timeout` after `timeout`.
    public func acknowledged(timeout: Duration = .seconds(10)) async throws {
        guard qos != .atMostOnce else { return }
        _ = try await client.acknowledgement(of: messageID, timeout: timeout, "PUBACK for \(topic)")
    }
}
