import TopicGateCore

/// One payload for one device topic.
struct DevicePublication: Sendable, Hashable {
    let topic: String
    let payload: [UInt8]
}

/// Why a publication was not delivered.
enum DeliveryFailure: Sendable, Hashable {
    /// The broker can never take it (larger than its packet limit): trying again is useless.
    case refused(String)
    /// Not acknowledged in time: the broker stalled, or dropped the connection.
    case unacknowledged
}

/// The gateway's connection to devices: the broker, seen from the services.
protocol DeviceLink: Sendable {
    /// True while publications can be handed to the broker.
    var isReady: Bool { get }
    /// Publishes each payload with QoS 1, in order, and returns the failures by index: those
    /// the broker did not acknowledge, and those it would refuse (never handed to it).
    func deliver(_ publications: [DevicePublication]) async -> [Int: DeliveryFailure]
    /// Tells the broker to refuse and disconnect these installations' MQTT credentials.
    func revoke(_ installations: [Installation]) async
}

/// The link when push is not configured: nothing is ever delivered, nothing to revoke.
struct DisconnectedDeviceLink: DeviceLink {
    var isReady: Bool { false }
    func deliver(_ publications: [DevicePublication]) async -> [Int: DeliveryFailure] {
        Dictionary(uniqueKeysWithValues: publications.indices.map { ($0, .unacknowledged) })
    }
    func revoke(_ installations: [Installation]) async {}
}
