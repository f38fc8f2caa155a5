public import TopicGateCore
public import TopicGateStore

/// The way to devices as the services see it, for topic sends and commands alike: a message
/// to deliver, durable when `dispatch` returns.
public protocol PushDispatcher: Sendable {
    /// Writes `message` durably and delivers it. With `record`, the message is written by
    /// `record` in the same transaction as the record it belongs to (a command, its results),
    /// as the `QueuedPush` it is given, or nil when there is nothing to queue (no recipients,
    /// push off): the record is written either way. Returns once the write is on disk.
    func dispatch(_ message: OutboxMessage, storing record: ((QueuedPush?) async throws -> Void)?) async throws

    /// How far the traced message `messageID` got toward each device (`OutboxMessage.traced`).
    func trace(of messageID: PushMessageID, appID: AppID) async throws -> [DeviceDelivery]
}

extension PushDispatcher {
    /// `message` alone, with no record of its own (a topic send).
    public func dispatch(_ message: OutboxMessage) async throws { try await dispatch(message, storing: nil) }
}
