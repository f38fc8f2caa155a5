internal import PostgresNIO
import TopicGateCore

/// Removes an entry from a topic's ACL (by the topic's row ID), with its audit record and the
/// topic's change notice (`RecordedACLStep`).
struct ACLEntryRevocation: NamedStatement {
    static let sql = RecordedACLStep.sql("DELETE FROM acl_entries WHERE topic_id = $1 AND action = $2 AND subject = $3")

    let recorded: RecordedACLStep

    func makeBindings() -> PostgresBindings { recorded.bindings }
}
