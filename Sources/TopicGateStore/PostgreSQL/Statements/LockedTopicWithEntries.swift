internal import PostgresNIO
import TopicGateCore

/// A topic's row ID with its ACL entries (a row per entry; one row without an entry's columns
/// when it has none), the topic's row locked until the transaction ends (two gateways changing
/// one topic's entries take turns): one statement where the lock and the entries took two.
struct LockedTopicWithEntries: NamedStatement {
    static let sql = """
        SELECT t.topic_id, e.action, e.subject, e.is_default
        FROM topics t LEFT JOIN acl_entries e ON e.topic_id = t.topic_id
        WHERE t.app_id = $1 AND t.scope_kind = $2 AND t.scope_id = $3 AND t.name = $4
        FOR UPDATE OF t
        """

    let topic: TopicByAddress

    func makeBindings() -> PostgresBindings { topic.makeBindings() }
}
