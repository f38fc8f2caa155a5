/// How far a traced push got toward one device.
///
/// The broker's acknowledgement (QoS 1) is the last step the gateway sees: MQTT gives a
/// publisher no word of the subscriber's own acknowledgement. Whether the device was connected
/// at that moment, as the broker plugin reports it, tells the two outcomes apart.
public enum DeliveryState: String, Sendable, Hashable, CaseIterable {
    /// Accepted; not yet acknowledged by the broker for this device.
    case pending
    /// The broker acknowledged it while the device was connected: it is on its way to it.
    case acknowledged
    /// The broker acknowledged it while the device was not connected: the device gets it when
    /// it comes back only if the broker kept its session.
    case offline
    /// Refused by the broker, or given up on (a dead letter).
    case failed
}
