internal import PostgresNIO
import TopicGateCore

/// Ends a subscription to a topic (by its address) and, when there was one, tells every gateway
/// (`listeners`, delivered when the statement commits), in one statement (see
/// `SubscriptionAddition`). Returns one row: `topics`, 0 when there is no such topic; `changed`,
/// 1 when there was a subscription.
struct SubscriptionRemoval: NamedStatement {
    static let sql = """
        WITH topic AS (
            SELECT topic_id FROM topics WHERE app_id = $1 AND scope_kind = $2 AND scope_id = $3 AND name = $4
        ), changed AS (
            DELETE FROM subscriptions s USING topic
            WHERE s.topic_id = topic.topic_id AND s.subscriber_kind = $5::text AND s.subscriber_id = $6::text
            RETURNING 1
        ), told AS (
            SELECT pg_notify($7::text, $8::text) FROM changed
        )
        SELECT (SELECT count(*) FROM topic) AS topics, (SELECT count(*) FROM changed) AS changed,
            (SELECT count(*) FROM told) AS told
        """

    let appID: AppID
    let address: TopicAddress
    let subscriber: Subscriber
    /// What every gateway is told when it changed a subscription.
    let notice: ChangeNotice

    func makeBindings() -> PostgresBindings {
        let (scopeKind, scopeID) = StoredForm.columns(address.scope)
        let (kind, id) = StoredForm.columns(subscriber)
        return Self.bindings(
            """
            \(appID)\(scopeKind)\(scopeID)\(address.name.rawValue)\(kind)\(id)\(notice.channel)\
            \(notice.change.payload)
            """)
    }
}
