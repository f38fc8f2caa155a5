internal import PostgresNIO
import TopicGateCore

/// Subscribes a user or thing to a topic (by its address), unless a limit is given (`$10`) and
/// the subscriber holds that many subscriptions in the app already, and, when the subscription
/// is new, tells every gateway (`listeners`, delivered when the statement commits): one
/// statement, one round trip, where the count and a transaction took six (the count, BEGIN, the
/// topic, the subscription, the notice, COMMIT). Returns one row: `topics`, 0 when there is no
/// such topic; `changed`, 1 when the subscription is new; `held`, the subscriptions counted (0
/// without a limit).
struct SubscriptionAddition: NamedStatement {
    static let sql = """
        WITH topic AS (
            SELECT topic_id FROM topics WHERE app_id = $1 AND scope_kind = $2 AND scope_id = $3 AND name = $4
        ), held AS (
            SELECT count(*) AS n FROM subscriptions s JOIN topics t ON t.topic_id = s.topic_id
            WHERE $10::bigint IS NOT NULL AND s.subscriber_kind = $5::text AND s.subscriber_id = $6::text
                AND t.app_id = $1
        ), changed AS (
            INSERT INTO subscriptions (topic_id, subscriber_kind, subscriber_id, created_at)
            SELECT topic_id, $5::text, $6::text, $7::bigint FROM topic
            WHERE $10::bigint IS NULL OR (SELECT n FROM held) < $10::bigint
            ON CONFLICT DO NOTHING RETURNING 1
        ), told AS (
            SELECT pg_notify($8::text, $9::text) FROM changed
        )
        SELECT (SELECT count(*) FROM topic) AS topics, (SELECT count(*) FROM changed) AS changed,
            (SELECT n FROM held) AS held, (SELECT count(*) FROM told) AS told
        """

    let appID: AppID
    let address: TopicAddress
    let subscriber: Subscriber
    let at: UnixMillis
    /// What every gateway is told when it changed a subscription.
    let notice: ChangeNotice
    /// At most this many subscriptions of the subscriber in the app (nil: no limit).
    var limit: Int? = nil

    func makeBindings() -> PostgresBindings {
        let (scopeKind, scopeID) = StoredForm.columns(address.scope)
        let (kind, id) = StoredForm.columns(subscriber)
        return Self.bindings(
            """
            \(appID)\(scopeKind)\(scopeID)\(address.name.rawValue)\(kind)\(id)\(at)\(notice.channel)\
            \(notice.change.payload)\(limit.map(Int64.init))
            """)
    }
}
