internal import PostgresNIO
import TopicGateCore

/// Adds an entry to a topic's ACL (by the topic's row ID), as granted (not a default entry),
/// with its audit record and the topic's change notice (`RecordedACLStep`).
struct ACLEntryGrant: NamedStatement {
    static let sql = RecordedACLStep.sql(
        "INSERT INTO acl_entries (topic_id, action, subject, is_default) VALUES ($1, $2, $3, false)")

    let recorded: RecordedACLStep

    func makeBindings() -> PostgresBindings { recorded.bindings }
}
