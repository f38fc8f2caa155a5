import TopicGateCore

/// Outbox messages whose publications are with the brokers already (`PushPipeline.start`),
/// waiting for their outcome to be recorded (`PushPipeline.finish`).
struct StartedBatch: Sendable {
    let messages: [OutboxMessage]
    /// The broker of each publication (all that is needed of it once handed over: a send to a
    /// million devices does not keep a million topics and payloads until it is settled).
    let brokers: [String]
    /// The index in `messages` of each publication's message.
    let owners: [Int]
    /// Each publication's device, when a message is traced (empty otherwise: only a trace
    /// records devices).
    let targets: [PushEndpoint]
    let pending: PendingDelivery
}
