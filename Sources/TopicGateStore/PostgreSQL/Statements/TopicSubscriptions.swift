internal import PostgresNIO

/// Who subscribes to a topic.
struct TopicSubscriptions: NamedStatement {
    static let sql = "SELECT subscriber_kind, subscriber_id FROM subscriptions WHERE topic_id = $1"

    let topicID: Int64

    func makeBindings() -> PostgresBindings { Self.bindings("\(topicID)") }
}
