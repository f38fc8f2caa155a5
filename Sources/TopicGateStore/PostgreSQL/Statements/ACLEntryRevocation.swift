internal import PostgresNIO
import TopicGateCore

/// Removes an entry from a topic's ACL, with its audit record and the topic's change notice, if
/// the topic's entries are still those the step was planned on (`RecordedACLStep`).
struct ACLEntryRevocation: NamedStatement {
    static let sql = RecordedACLStep.sql(
        """
        DELETE FROM acl_entries
            WHERE topic_id IN (SELECT topic_id FROM claimed) AND action = $1::text AND subject = $2::text
            RETURNING 1
        """)

    let recorded: RecordedACLStep

    func makeBindings() -> PostgresBindings { recorded.bindings }
}
