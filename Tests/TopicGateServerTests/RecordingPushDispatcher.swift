import Synchronization
import TopicGateCore
import TopicGateServer
import TopicGateStore

/// A dispatcher that records the messages it is handed (the last `capacity`) and delivers
/// nothing; a message's own record is stored as with push off. What the router tests inspect.
public final class RecordingPushDispatcher: PushDispatcher {
    private let recorded = Mutex<[OutboxMessage]>([])
    public let capacity: Int

    public init(capacity: Int = 1000) { self.capacity = capacity }

    public func dispatch(_ message: OutboxMessage, storing record: ((QueuedPush?) async throws -> Void)?)
        async throws
    {
        try await record?(nil)
        recorded.withLock { messages in
            messages.append(message)
            if messages.count > capacity { messages.removeFirst(messages.count - capacity) }
        }
    }

    /// Nothing was delivered, so nothing was traced.
    public func trace(of messageID: PushMessageID, appID: AppID) async throws -> [DeviceDelivery] { [] }

    /// The recorded messages, oldest first.
    public var messages: [OutboxMessage] { recorded.withLock { $0 } }
}
