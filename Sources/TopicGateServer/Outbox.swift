import TopicGateCore
import TopicGateStore

/// The way to devices: writes a message to the durable outbox (so that whoever enqueued it may
/// answer its request once it survives a crash) and wakes the delivery service.
struct Outbox: Sendable {
    let store: any OutboxStore
    let wakeup: Wakeup

    func enqueue(_ message: OutboxMessage) async throws {
        try await store.enqueue(message)
        wakeup.signal()
    }
}
