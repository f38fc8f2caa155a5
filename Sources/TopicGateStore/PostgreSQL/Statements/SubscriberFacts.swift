internal import PostgresNIO
import TopicGateCore

/// Who subscribes to a topic (by its address), with what each subscribing user's access depends
/// on, in one statement where four took turns (the topic, its subscriptions, the users' groups,
/// the things they or their groups own). A row per fact, in column `fact`:
/// - `subscriber`: `kind` (`user` or `thing`) and `id` subscribe;
/// - `member`: user `detail` is a member of group `id`;
/// - `owns`: the user or group (`kind`) `id` owns thing `detail`.
/// No row when there is no such topic or nobody subscribes.
struct SubscriberFacts: NamedStatement {
    static let sql = """
        WITH subscribers AS (
            SELECT s.subscriber_kind, s.subscriber_id FROM subscriptions s
            JOIN topics t ON t.topic_id = s.topic_id
            WHERE t.app_id = $1 AND t.scope_kind = $2 AND t.scope_id = $3 AND t.name = $4
        ), memberships AS (
            SELECT m.user_id, m.group_id FROM group_members m
            WHERE m.app_id = $1
                AND m.user_id IN (SELECT subscriber_id FROM subscribers WHERE subscriber_kind = 'user')
        )
        SELECT 'subscriber' AS fact, subscriber_kind AS kind, subscriber_id AS id, NULL::text AS detail
        FROM subscribers
        UNION ALL
        SELECT 'member', 'group', group_id, user_id FROM memberships
        UNION ALL
        SELECT 'owns', o.owner_kind, o.owner_id, o.thing_id FROM thing_owners o
        WHERE o.app_id = $1 AND (
            (o.owner_kind = 'user'
                AND o.owner_id IN (SELECT subscriber_id FROM subscribers WHERE subscriber_kind = 'user'))
            OR (o.owner_kind = 'group' AND o.owner_id IN (SELECT group_id FROM memberships)))
        """

    let topic: TopicByAddress

    func makeBindings() -> PostgresBindings { topic.makeBindings() }
}
