public import TopicGateCore

/// What TopicGate's broker plugin says it can do, on `topicgate/presence`, in answer to the
/// gateway's request (`MQTTControlMessage.presenceAndFeaturesRequest`):
/// `{"features":["fanOut"],"nonce":"…"}`. The nonce is the request's: an answer is trusted only
/// on the connection that asked, so a broker replaced meanwhile by one whose plugin lacks a
/// feature is never taken for one that has it.
public struct PluginFeatures: Sendable, Hashable {
    public let names: Set<String>
    public let nonce: String

    /// Nil for anything but such an answer.
    public init?(payload: [UInt8]) {
        guard let object = try? JSONReader.object(payload), let names = object["features"]?.arrayValue,
            let nonce = object["nonce"]?.stringValue
        else { return nil }
        self.names = Set(names.compactMap(\.stringValue))
        self.nonce = nonce
    }

    /// The plugin publishes fan-outs (`MQTTFanOut`).
    public var fanOut: Bool { names.contains("fanOut") }

    /// The plugin also takes several fan-outs in one PUBLISH (`MQTTFanOutBatch`).
    public var fanOutBatches: Bool { names.contains("fanOutBatches") }

    /// The plugin answers routing barriers (`MQTTControlMessage.barrier(id:)`).
    public var routed: Bool { names.contains("routed") }

    /// The plugin answers a barrier only once the broker wrote its persistence file after
    /// routing what the barrier covers (`{"saved":"<id>"}`): a crash can no longer lose it.
    public var saved: Bool { names.contains("saved") }
}
