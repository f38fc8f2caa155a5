public import TopicGateCore

/// The per-device outcome of traced pushes (an operator's test push), kept for a day. Pushes
/// that are not traced leave no record here.
public protocol DeliveryTraceStore: Sendable {
    /// Writes `deliveries`. `replacing: false` adds only those not recorded yet (the pending
    /// devices of a push being accepted, which must not undo an outcome recorded meanwhile);
    /// `true` records outcomes over what was there. Records older than a day are forgotten.
    func recordDeliveries(_ deliveries: [DeviceDelivery], replacing: Bool) async throws
    /// The devices of a traced push, ordered by principal and installation.
    func deliveries(appID: AppID, messageID: PushMessageID) async throws -> [DeviceDelivery]
}
