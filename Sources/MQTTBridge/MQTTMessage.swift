public import TopicGateCore

/// A message received on a subscription; topic and payload are copied out of libmosquitto.
public struct MQTTMessage: Sendable, Hashable {
    public let topic: String
    public let payload: [UInt8]
    public let qos: MQTTQoS
    public let retained: Bool
    /// When it arrived, taken as libmosquitto handed it over: the order of
    /// arrival even when the messages wait to be handled. Not part of equality.
    public let receivedAt: UnixMillis

    public init(topic: String, payload: [UInt8], qos: MQTTQoS, retained: Bool = false, receivedAt: UnixMillis = 0) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retained = retained
        self.receivedAt = receivedAt
    }

    public static func == (lhs: MQTTMessage, rhs: MQTTMessage) -> Bool {
        lhs.topic == rhs.topic && lhs.payload == rhs.payload && lhs.qos == rhs.qos && lhs.retained == rhs.retained
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(topic)
        hasher.combine(payload)
        hasher.combine(qos)
        hasher.combine(retained)
    }

    /// The payload as UTF-8 text.
    public var text: String { String(decoding: payload, as: UTF8.self) }
}
