import TopicGateCore

/// One payload for one device topic.
struct DevicePublication: Sendable, Hashable {
    let topic: String
    let payload: [UInt8]
}

/// The gateway's connection to devices: the broker, seen from the services.
protocol DeviceLink: Sendable {
    /// True while publications can be handed to the broker.
    var isReady: Bool { get }
    /// Publishes each payload with QoS 1, in order, and returns the indices of those the
    /// broker did not acknowledge.
    func deliver(_ publications: [DevicePublication]) async -> Set<Int>
    /// Tells the broker to refuse and disconnect these installations' MQTT credentials.
    func revoke(_ installations: [Installation]) async
}

/// The link when push is not configured: nothing is ever delivered, nothing to revoke.
struct DisconnectedDeviceLink: DeviceLink {
    var isReady: Bool { false }
    func deliver(_ publications: [DevicePublication]) async -> Set<Int> { Set(publications.indices) }
    func revoke(_ installations: [Installation]) async {}
}
