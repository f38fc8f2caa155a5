import TopicGateCore
import TopicGateStore

/// Where sends go when push is off (no broker configured): nowhere. A send is still checked
/// and answered as with push on, and a command is stored (it stays `SENDING`); without a broker
/// no device can have installed, so there is nobody a message could reach.
struct PushOffDispatcher: PushDispatcher {
    func dispatch(_ message: OutboxMessage, storing record: ((QueuedPush?) async throws -> Void)?) async throws {
        try await record?(nil)
    }

    /// No trace: no device could have had it.
    func trace(of messageID: PushMessageID, appID: AppID) async throws -> [DeviceDelivery] { [] }
}
