internal import PostgresNIO
import TopicGateCore

/// Subscribes a user or thing to a topic (by its address) and, when the subscription is new,
/// tells every gateway (`listeners`, delivered when the statement commits): one statement, one
/// round trip, where a transaction took five (BEGIN, the topic, the subscription, the notice,
/// COMMIT). Returns one row: `topics`, 0 when there is no such topic; `changed`, 1 when the
/// subscription is new.
struct SubscriptionAddition: NamedStatement {
    static let sql = """
        WITH topic AS (
            SELECT topic_id FROM topics WHERE app_id = $1 AND scope_kind = $2 AND scope_id = $3 AND name = $4
        ), changed AS (
            INSERT INTO subscriptions (topic_id, subscriber_kind, subscriber_id, created_at)
            SELECT topic_id, $5::text, $6::text, $7::bigint FROM topic ON CONFLICT DO NOTHING RETURNING 1
        ), told AS (
            SELECT pg_notify($8::text, $9::text) FROM changed
        )
        SELECT (SELECT count(*) FROM topic) AS topics, (SELECT count(*) FROM changed) AS changed,
            (SELECT count(*) FROM told) AS told
        """

    let appID: AppID
    let address: TopicAddress
    let subscriber: Subscriber
    let at: UnixMillis
    /// What every gateway is told when it changed a subscription.
    let notice: ChangeNotice

    func makeBindings() -> PostgresBindings {
        let (scopeKind, scopeID) = StoredForm.columns(address.scope)
        let (kind, id) = StoredForm.columns(subscriber)
        return Self.bindings(
            """
            \(appID)\(scopeKind)\(scopeID)\(address.name.rawValue)\(kind)\(id)\(at)\(notice.channel)\
            \(notice.change.payload)
            """)
    }
}
