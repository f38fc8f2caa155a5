import TopicGateCore

/// One payload for many device topics, handed to TopicGate's broker plugin on
/// `$CONTROL/topicgate/v1/fanout`, which publishes it inside the broker to each topic with QoS 1:
/// one PUBLISH and one PUBACK between the gateway and the broker for many devices, where
/// publishing to each device costs both sides a packet and an acknowledgement apiece.
///
/// Its bytes: the version (1); the payload's length, 4 bytes big-endian; the payload; then each
/// topic as one length byte and its bytes. A topic must be one a device can hold
/// (`carries(_:)`: a well-formed ID, 1...128 letters, digits, `_`, `-` or `.`, what the plugin
/// accepts as a username); the plugin refuses a fan-out with any other whole, and delivers none
/// of it.
public struct MQTTFanOut: Sendable, Hashable {
    /// The control topic the plugin takes fan-outs on.
    public static let topic = "$CONTROL/topicgate/v1/fanout"
    static let version: UInt8 = 1

    public let payload: [UInt8]
    public let topics: [String]

    public init(payload: [UInt8], topics: [String]) {
        self.payload = payload
        self.topics = topics
    }

    /// True when `topic` can be named in a fan-out: a device topic the plugin accepts.
    public static func carries(_ topic: String) -> Bool { IDSyntax.isWellFormed(topic) }

    /// The bytes a fan-out of `payloadCount` bytes takes before its topics.
    public static func headerSize(payloadCount: Int) -> Int { 5 + payloadCount }

    /// The bytes `topic` adds to a fan-out.
    public static func size(of topic: String) -> Int { 1 + topic.utf8.count }

    /// What the plugin reads (see the type's description).
    public var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.headerSize(payloadCount: payload.count) + topicsSize)
        bytes.append(Self.version)
        Self.appendLength(payload.count, to: &bytes)
        bytes.append(contentsOf: payload)
        appendTopics(to: &bytes)
        return bytes
    }

    /// The bytes its topics take.
    var topicsSize: Int { topics.reduce(0) { $0 + Self.size(of: $1) } }

    /// Appends `count` as 4 bytes, big-endian.
    static func appendLength(_ count: Int, to bytes: inout [UInt8]) {
        let count = UInt32(count)
        bytes.append(contentsOf: [
            UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF),
        ])
    }

    /// Appends each topic as one length byte and its bytes.
    func appendTopics(to bytes: inout [UInt8]) {
        for topic in topics {
            bytes.append(UInt8(topic.utf8.count))
            bytes.append(contentsOf: topic.utf8)
        }
    }
}
