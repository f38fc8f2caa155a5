/// Several fan-outs (`MQTTFanOut`), each its own payload for its own device topics, in one
/// PUBLISH on `MQTTFanOut.topic` to a plugin that takes them (`PluginFeatures.fanOutBatches`):
/// the sends one group commit wrote cost one packet and one PUBACK between the gateway and the
/// broker, not one each. The plugin publishes them in their order, so that pushes keep it.
///
/// Its bytes: the version (2); then each fan-out as its payload's length (4 bytes big-endian),
/// the payload, its number of topics (2 bytes big-endian, 1...65 535) and each topic as one
/// length byte and its bytes. The plugin refuses a batch with anything malformed whole, and
/// delivers none of it.
public struct MQTTFanOutBatch: Sendable, Hashable {
    static let version: UInt8 = 2
    /// The bytes a batch takes before its first fan-out.
    public static let headerSize = 1
    /// The most topics one of its fan-outs may name.
    public static let topicsPerFanOut = 65_535

    public let fanOuts: [MQTTFanOut]

    public init(_ fanOuts: [MQTTFanOut]) { self.fanOuts = fanOuts }

    /// The bytes a fan-out of `payloadCount` bytes takes in a batch before its topics.
    public static func sectionSize(payloadCount: Int) -> Int { 6 + payloadCount }

    /// What the plugin reads (see the type's description).
    public var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(
            fanOuts.reduce(Self.headerSize) { size, fanOut in
                size + Self.sectionSize(payloadCount: fanOut.payload.count) + fanOut.topicsSize
            })
        bytes.append(Self.version)
        for fanOut in fanOuts {
            MQTTFanOut.appendLength(fanOut.payload.count, to: &bytes)
            bytes.append(contentsOf: fanOut.payload)
            let topics = UInt16(fanOut.topics.count)
            bytes.append(contentsOf: [UInt8(topics >> 8), UInt8(topics & 0xFF)])
            fanOut.appendTopics(to: &bytes)
        }
        return bytes
    }
}
