public import TopicGateCore

/// Accepted pushes not yet acknowledged by the broker for every recipient device.
public protocol OutboxStore: Sendable {
    /// Durably records `message`; when this returns the message survives a crash.
    func enqueue(_ message: OutboxMessage) async throws
    /// The oldest `limit` waiting messages, oldest first.
    func pendingMessages(limit: Int) async throws -> [OutboxMessage]
    /// Removes delivered messages.
    func completeMessages(ids: [String]) async throws
    func pendingMessageCount() async throws -> Int
}
