import TopicGateCore

/// An accepted message with the recipients resolved when it was sent: the subscribed users and
/// things that still pass `SUBSCRIBE_TO_TOPIC`.
public struct PushDelivery: Sendable, Hashable {
    public let message: PushMessage
    public let recipients: [Subscriber]
    /// The MQTT payload, built once.
    public let payload: [UInt8]
    /// Whether each device's outcome is recorded (an operator's test push).
    public let traced: Bool

    public init(message: PushMessage, recipients: [Subscriber], traced: Bool = false) {
        self.traced = traced
        self.message = message
        self.recipients = recipients
        self.payload = JSONWriter.bytes(message.mqttPayload)
    }
}

/// Hands accepted messages on toward devices.
public protocol PushDispatcher: Sendable {
    func dispatch(_ delivery: PushDelivery) async throws
}
