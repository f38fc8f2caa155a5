public import TopicGateCore

/// Accepted pushes not yet acknowledged by the broker for every recipient device.
public protocol OutboxStore: Sendable {
    /// Durably records `messages` in one transaction (one disk sync); when this returns they
    /// survive a crash. All or none.
    func enqueue(_ messages: [OutboxMessage]) async throws
    /// The oldest `limit` waiting messages, oldest first.
    func pendingMessages(limit: Int) async throws -> [OutboxMessage]
    /// Removes delivered messages.
    func completeMessages(ids: [String]) async throws
    func pendingMessageCount() async throws -> Int
}
