internal import PostgresNIO
import TopicGateCore

/// A topic's row ID and `acl_list`, the row locked until the transaction ends: two changes of
/// one topic's entries take turns. Its entries are read by the next statement (`TopicEntries`),
/// whose snapshot is taken once the lock is held: a join in this one would read the entries as
/// they were before it waited for the lock, without those of the change it waited for.
struct LockedTopic: NamedStatement {
    static let sql = """
        SELECT topic_id, acl_list FROM topics
        WHERE app_id = $1 AND scope_kind = $2 AND scope_id = $3 AND name = $4
        FOR UPDATE
        """

    let topic: TopicByAddress

    func makeBindings() -> PostgresBindings { topic.makeBindings() }
}
