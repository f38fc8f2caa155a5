/// The largest push payload a broker takes, derived from its `max_packet_size`: an MQTT
/// PUBLISH packet also holds a fixed header (up to 5 bytes), the topic's length (2), the topic
/// (a device topic; at most `topicAllowance` bytes) and a packet ID (2). A broker that gets a
/// larger packet drops the whole connection, so what it cannot take is refused when the send
/// or command is made, not found out at delivery.
public struct PushSizeLimit: Sendable, Hashable {
    public static let topicAllowance = 128
    public let maximumPacketSize: Int

    public init(maximumPacketSize: Int) {
        self.maximumPacketSize = maximumPacketSize
    }

    /// The most payload bytes one push may carry.
    public var maximumPayloadBytes: Int { max(0, maximumPacketSize - 9 - Self.topicAllowance) }

    /// 400 `INVALID_INPUT_DATA` naming the limit when `payload` is larger.
    public func check(_ payload: [UInt8], field: String) throws(KiiError) {
        guard payload.count > maximumPayloadBytes else { return }
        var error = KiiError.invalidInput(
            "The message is \(payload.count) bytes once built; the broker takes at most \(maximumPayloadBytes) "
                + "bytes of payload.",
            field: field)
        error.context["maximumBytes"] = .int(Int64(maximumPayloadBytes))
        error.context["size"] = .int(Int64(payload.count))
        throw error
    }
}
