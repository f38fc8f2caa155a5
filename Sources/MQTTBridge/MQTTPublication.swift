/// A message handed to libmosquitto, whose broker acknowledgement can be awaited.
public struct MQTTPublication: Sendable {
    let client: MQTTClient
    public let messageID: Int32
    public let topic: String
    public let qos: MQTTQoS

    /// Returns when the broker acknowledged the message (immediately for QoS 0); throws
    /// `timeout` after `timeout`.
    public func acknowledged(timeout: Duration = .seconds(10)) async throws {
        guard qos != .atMostOnce else { return }
        _ = try await client.acknowledgement(of: messageID, timeout: timeout, "PUBACK for \(topic)")
    }
}
