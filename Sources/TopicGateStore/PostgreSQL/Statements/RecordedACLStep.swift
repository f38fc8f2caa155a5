internal import PostgresNIO
import TopicGateCore

/// One step of a topic's ACL change as one statement (`ACLEntryGrant`, `ACLEntryRevocation`):
/// the entry's change, its audit record (who made it, the entries before and after) and the
/// notice that tells every gateway the topic changed (delivered when the statement commits;
/// PostgreSQL delivers identical notices of one transaction once).
///
/// The step applies only while the topic's entries are those it was planned on: it first
/// moves the topic's `acl_list` from the list before the step to the list after it, and that
/// update finds no row when the list is another (a concurrent change committed first; PostgreSQL
/// checks the row as that change left it) or unknown. So a change planned on entries read
/// earlier (a gateway's cache) commits in one statement, or changes nothing and is planned
/// again on the entries read under the topic's lock. Returns one row: `claimed` (1 when the list
/// was the expected one), `changed` (1 when the entry was added or removed), `told`.
///
/// Its parameters: `$1` the action, `$2` the subject, then the topic's address, the audit's, the
/// notice's and the two lists.
struct RecordedACLStep: Sendable {
    let appID: AppID
    let address: TopicAddress
    let actor: Principal
    let step: ACLChangePlan.Step
    let at: UnixMillis
    let notice: ChangeNotice
    /// The topic's `acl_list` as the step expects to find it (nil: NULL, unknown).
    let expectedList: String?

    /// The statement that makes `change` (on `acl_entries`, for the topic in `claimed`, with
    /// `$1` and `$2`, returning a row per entry changed) and records it.
    static func sql(_ change: String) -> String {
        """
        WITH claimed AS (
            UPDATE topics SET acl_list = $14::text
            WHERE app_id = $3::text AND scope_kind = $4::text AND scope_id = $5::text AND name = $6::text
                AND acl_list IS NOT DISTINCT FROM $15::text
            RETURNING topic_id
        ), changed AS (
            \(change)
        ), audited AS (
            INSERT INTO acl_audit (app_id, scope_kind, scope_id, name, actor, change, action, subject, before, after, at)
            SELECT $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $1::text, $2::text, $9::text, $10::text,
                $11::bigint
            FROM changed
        ), told AS (
            SELECT pg_notify($12::text, $13::text) FROM changed
        )
        SELECT (SELECT count(*) FROM claimed) AS claimed, (SELECT count(*) FROM changed) AS changed,
            (SELECT count(*) FROM told) AS told
        """
    }

    var bindings: PostgresBindings {
        let (kind, id) = StoredForm.columns(address.scope)
        let entry = step.change.entry
        return ACLEntryGrant.bindings(
            """
            \(entry.action.rawValue)\(entry.subject.description)\
            \(appID)\(kind)\(id)\(address.name.rawValue)\(actor.description)\(step.change.kind.rawValue)\
            \(StoredForm.entryList(step.before))\(StoredForm.entryList(step.after))\(at)\
            \(notice.channel)\(notice.payload)\
            \(StoredForm.aclList(step.entriesAfter))\(expectedList)
            """)
    }

    /// Whether the statement found the list it expected, and whether it changed the entry.
    static func outcome(_ rows: [PostgresColumns]) throws -> (claimed: Bool, changed: Bool) {
        guard let row = rows.first else { return (false, false) }
        return (try row("claimed", as: Int64.self) > 0, try row("changed", as: Int64.self) > 0)
    }
}
