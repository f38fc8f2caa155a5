public import TopicGateCore

/// The broker plugin's answer to a routing barrier (`MQTTControlMessage.barrier(id:)`), on
/// `topicgate/presence`: `{"routed":"<id>"}`. Every fan-out the gateway sent before that
/// barrier is routed into its devices' sessions.
public struct RoutingReceipt: Sendable, Hashable {
    public let id: String

    /// Nil for anything but such an answer.
    public init?(payload: [UInt8]) {
        guard payload.count < 128, let object = try? JSONReader.object(payload),
            let id = object["routed"]?.stringValue
        else { return nil }
        self.id = id
    }
}
