public import TopicGateCore

/// The broker plugin's answer to a routing barrier (`MQTTControlMessage.barrier(id:)`), on
/// `topicgate/presence`: `{"routed":"<id>"}`, every fan-out the gateway sent before that
/// barrier is routed into its devices' sessions; or `{"saved":"<id>"}` from a plugin that saves
/// on request (`PluginFeatures.saved`), they are also in the broker's persistence file.
public struct RoutingReceipt: Sendable, Hashable {
    public let id: String
    /// The broker wrote what the barrier covers to its persistence file.
    public let saved: Bool

    public init(id: String, saved: Bool) {
        self.id = id
        self.saved = saved
    }

    /// Nil for anything but such an answer.
    public init?(payload: [UInt8]) {
        guard payload.count < 128, let object = try? JSONReader.object(payload) else { return nil }
        if let id = object["saved"]?.stringValue {
            (self.id, saved) = (id, true)
        } else if let id = object["routed"]?.stringValue {
            (self.id, saved) = (id, false)
        } else {
            return nil
        }
    }
}
