public import TopicGateCore

/// An outbox message to store in the same transaction as the record it belongs to (a command
/// and the push that carries it to the thing, its results and the push of its `commandID`),
/// claimed by the gateway that will publish it from memory.
public struct QueuedPush: Sendable {
    public var message: OutboxMessage
    public var claim: OutboxClaim

    public init(message: OutboxMessage, claim: OutboxClaim) {
        self.message = message
        self.claim = claim
    }
}
