internal import PostgresNIO
import TopicGateCore

/// Ends a subscription to a topic (by its row ID); returns a row only when there was one.
struct SubscriptionRemoval: NamedStatement {
    static let sql = """
        DELETE FROM subscriptions WHERE topic_id = $1 AND subscriber_kind = $2 AND subscriber_id = $3 RETURNING 1
        """

    let topicID: Int64
    let subscriber: Subscriber

    func makeBindings() -> PostgresBindings {
        let (kind, id) = StoredForm.columns(subscriber)
        return Self.bindings("\(topicID)\(kind)\(id)")
    }
}
