internal import PostgresNIO
import TopicGateCore

/// The ACL entries of a topic, by its row ID.
struct TopicEntries: NamedStatement {
    static let sql = "SELECT action, subject, is_default FROM acl_entries WHERE topic_id = $1"

    let topicID: Int64

    func makeBindings() -> PostgresBindings { Self.bindings("\(topicID)") }
}
