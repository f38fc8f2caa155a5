internal import PostgresNIO
import TopicGateCore

/// Adds an entry to a topic's ACL, as granted (not a default entry), with its audit record and
/// the topic's change notice, if the topic's entries are still those the step was planned on
/// (`RecordedACLStep`).
struct ACLEntryGrant: NamedStatement {
    static let sql = RecordedACLStep.sql(
        """
        INSERT INTO acl_entries (topic_id, action, subject, is_default)
            SELECT topic_id, $1::text, $2::text, false FROM claimed
            RETURNING 1
        """)

    let recorded: RecordedACLStep

    func makeBindings() -> PostgresBindings { recorded.bindings }
}
