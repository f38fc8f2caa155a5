internal import PostgresNIO
import TopicGateCore

/// One step of a topic's ACL change as one statement (`ACLEntryGrant`, `ACLEntryRevocation`):
/// the entry's change, its audit record (who made it, the entries before and after) and the
/// notice that tells every gateway the topic changed (delivered when the transaction commits;
/// PostgreSQL delivers identical notices of one transaction once). Its parameters: `$1` the
/// topic's row ID, `$2` the action, `$3` the subject, then the audit's and the notice's.
struct RecordedACLStep: Sendable {
    let topicID: Int64
    let appID: AppID
    let address: TopicAddress
    let actor: Principal
    let step: ACLChangePlan.Step
    let at: UnixMillis
    let notice: ChangeNotice

    /// The statement that makes `change` (on `acl_entries`, with `$1`–`$3`) and records it.
    static func sql(_ change: String) -> String {
        """
        WITH changed AS (
            \(change)
        ), audited AS (
            INSERT INTO acl_audit (app_id, scope_kind, scope_id, name, actor, change, action, subject, before, after, at)
            VALUES ($4, $5, $6, $7, $8, $9, $2, $3, $10, $11, $12)
        )
        SELECT pg_notify($13::text, $14::text)
        """
    }

    var bindings: PostgresBindings {
        let (kind, id) = StoredForm.columns(address.scope)
        let entry = step.change.entry
        return ACLEntryGrant.bindings(
            """
            \(topicID)\(entry.action.rawValue)\(entry.subject.description)\
            \(appID)\(kind)\(id)\(address.name.rawValue)\(actor.description)\(step.change.kind.rawValue)\
            \(StoredForm.entryList(step.before))\(StoredForm.entryList(step.after))\(at)\
            \(notice.channel)\(notice.change.payload)
            """)
    }
}
