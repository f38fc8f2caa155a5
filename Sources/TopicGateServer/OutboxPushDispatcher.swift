import TopicGateCore
import TopicGateStore

/// The dispatcher of a server with push: writes each accepted message to the durable outbox
/// (so that it is answered only once it will survive a crash) and wakes the delivery service.
struct OutboxPushDispatcher: PushDispatcher {
    let store: any OutboxStore
    let wakeup: Wakeup

    func dispatch(_ delivery: PushDelivery) async throws {
        guard !delivery.recipients.isEmpty else { return }
        try await store.enqueue(
            OutboxMessage(
                id: delivery.message.id, appID: delivery.message.appID,
                payload: JSONWriter.bytes(delivery.message.mqttPayload), recipients: delivery.recipients,
                acceptedAt: delivery.message.sentAt))
        wakeup.signal()
    }
}
