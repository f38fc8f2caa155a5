import TopicGateCore

/// Outbox messages whose publications are with the brokers already (`PushPipeline.start`),
/// waiting for their outcome to be recorded (`PushPipeline.finish`).
struct StartedBatch: Sendable {
    let messages: [OutboxMessage]
    let publications: [DevicePublication]
    /// The index in `messages` of each publication's message.
    let owners: [Int]
    /// Each publication's device, when a message is traced (empty otherwise: only a trace
    /// records devices).
    let targets: [PushEndpoint]
    let pending: PendingDelivery
}
