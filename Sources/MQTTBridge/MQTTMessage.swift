/// A message received on a subscription; topic and payload are copied out of libmosquitto.
public struct MQTTMessage: Sendable, Hashable {
    public let topic: String
    public let payload: [UInt8]
    public let qos: MQTTQoS
    public let retained: Bool

    public init(topic: String, payload: [UInt8], qos: MQTTQoS, retained: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retained = retained
    }

    /// The payload as UTF-8 text.
    public var text: String { String(decoding: payload, as: UTF8.self) }
}
