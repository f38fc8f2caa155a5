internal import PostgresNIO
import TopicGateCore

/// How many topics of an app a user or thing subscribes to (column `n`).
struct SubscriptionCount: NamedStatement {
    static let sql = """
        SELECT COUNT(*) AS n FROM subscriptions s JOIN topics t ON t.topic_id = s.topic_id
        WHERE s.subscriber_kind = $1 AND s.subscriber_id = $2 AND t.app_id = $3
        """

    let appID: AppID
    let subscriber: Subscriber

    func makeBindings() -> PostgresBindings {
        let (kind, id) = StoredForm.columns(subscriber)
        return Self.bindings("\(kind)\(id)\(appID)")
    }
}
