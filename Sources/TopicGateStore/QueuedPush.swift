public import TopicGateCore

/// An outbox message to store in the same transaction as the record it belongs to (a command
/// and the push that carries it to the thing, its results and the push of its `commandID`),
/// claimed by the gateway that will publish it from memory, until `leaseUntil`.
public struct QueuedPush: Sendable {
    public var message: OutboxMessage
    public var claimedBy: String
    public var leaseUntil: UnixMillis

    public init(message: OutboxMessage, claimedBy: String, leaseUntil: UnixMillis) {
        self.message = message
        self.claimedBy = claimedBy
        self.leaseUntil = leaseUntil
    }
}
