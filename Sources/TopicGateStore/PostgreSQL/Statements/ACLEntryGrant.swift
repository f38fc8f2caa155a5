internal import PostgresNIO
import TopicGateCore

/// Adds an entry to a topic's ACL (by the topic's row ID), as granted (not a default entry).
struct ACLEntryGrant: NamedStatement {
    static let sql = """
        INSERT INTO acl_entries (topic_id, action, subject, is_default) VALUES ($1, $2, $3, false)
        """

    let topicID: Int64
    let entry: ACLEntry

    func makeBindings() -> PostgresBindings {
        Self.bindings("\(topicID)\(entry.action.rawValue)\(entry.subject.description)")
    }
}
