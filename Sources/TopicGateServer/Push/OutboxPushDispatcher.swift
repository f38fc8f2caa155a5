import TopicGateCore

/// The dispatcher of a server with push: each accepted topic message goes to the outbox.
struct OutboxPushDispatcher: PushDispatcher {
    let outbox: Outbox

    func dispatch(_ delivery: PushDelivery) async throws {
        guard !delivery.recipients.isEmpty else { return }
        try await outbox.enqueue(
            OutboxMessage(
                id: delivery.message.id, appID: delivery.message.appID,
                payload: delivery.payload, recipients: delivery.recipients,
                acceptedAt: delivery.message.sentAt, traced: delivery.traced))
    }
}
