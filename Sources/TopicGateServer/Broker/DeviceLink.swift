import TopicGateCore

/// One payload for one device topic on the broker that serves the device.
struct DevicePublication: Sendable, Hashable {
    let topic: String
    let payload: [UInt8]
    /// The name of the broker that serves the device (`DeviceLink.broker(serving:)`).
    var broker = ""
}

/// Why a publication was not delivered.
enum DeliveryFailure: Sendable, Hashable {
    /// The broker can never take it (larger than its packet limit): trying again is useless.
    case refused(String)
    /// Not acknowledged in time by a broker that is connected: it stalled.
    case unacknowledged
    /// Its broker is not connected (down, or the connection dropped meanwhile): the device
    /// waits for it, and waiting is not a failed attempt.
    case brokerUnavailable
}

/// The gateway's connection to devices: the brokers, seen from the services.
protocol DeviceLink: Sendable {
    /// True while publications can be handed to at least one broker.
    var isReady: Bool { get }
    /// The name of the broker that serves the device at `endpoint`.
    func broker(serving endpoint: PushEndpoint) -> String
    /// Whether each broker is connected, by name, when devices are spread over several.
    var brokerConnections: [String: Bool] { get }
    /// Publishes each payload with QoS 1, in order, on its broker, and returns the failures by
    /// index: those the broker did not acknowledge, those whose broker is not connected, and
    /// those the broker would refuse (never handed to it).
    func deliver(_ publications: [DevicePublication]) async -> [Int: DeliveryFailure]
    /// Hands the publications to their brokers now, in order, and returns without waiting for
    /// the acknowledgements: `deliver` in two halves, so that a caller can publish at once and
    /// leave the waiting to another task.
    func start(_ publications: [DevicePublication]) -> PendingDelivery
    /// Tells every broker to refuse and disconnect these installations' MQTT credentials
    /// (any broker would take valid credentials, so each one must know).
    func revoke(_ installations: [Installation]) async
}

extension DeviceLink {
    func broker(serving endpoint: PushEndpoint) -> String { endpoint.broker ?? "" }
    var brokerConnections: [String: Bool] { [:] }
    /// A link that cannot publish without waiting publishes when the outcome is awaited.
    func start(_ publications: [DevicePublication]) -> PendingDelivery {
        PendingDelivery(awaiting: { await deliver(publications) })
    }
}

/// The link when push is not configured: nothing is ever delivered, nothing to revoke.
struct DisconnectedDeviceLink: DeviceLink {
    var isReady: Bool { false }
    func deliver(_ publications: [DevicePublication]) async -> [Int: DeliveryFailure] {
        Dictionary(uniqueKeysWithValues: publications.indices.map { ($0, .brokerUnavailable) })
    }
    func revoke(_ installations: [Installation]) async {}
}
