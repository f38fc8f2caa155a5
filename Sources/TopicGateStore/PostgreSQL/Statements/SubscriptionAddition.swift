internal import PostgresNIO
import TopicGateCore

/// Subscribes a user, group or thing to a topic (by its row ID); returns a row only when the
/// subscription is new.
struct SubscriptionAddition: NamedStatement {
    static let sql = """
        INSERT INTO subscriptions (topic_id, subscriber_kind, subscriber_id, created_at)
        VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING 1
        """

    let topicID: Int64
    let subscriber: Subscriber
    let at: UnixMillis

    func makeBindings() -> PostgresBindings {
        let (kind, id) = StoredForm.columns(subscriber)
        return Self.bindings("\(topicID)\(kind)\(id)\(at)")
    }
}
