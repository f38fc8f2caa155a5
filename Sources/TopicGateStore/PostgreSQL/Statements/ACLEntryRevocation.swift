internal import PostgresNIO
import TopicGateCore

/// Removes an entry from a topic's ACL (by the topic's row ID).
struct ACLEntryRevocation: NamedStatement {
    static let sql = "DELETE FROM acl_entries WHERE topic_id = $1 AND action = $2 AND subject = $3"

    let topicID: Int64
    let entry: ACLEntry

    func makeBindings() -> PostgresBindings {
        Self.bindings("\(topicID)\(entry.action.rawValue)\(entry.subject.description)")
    }
}
