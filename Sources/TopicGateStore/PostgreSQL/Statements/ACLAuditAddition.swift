internal import PostgresNIO
import TopicGateCore

/// Records one change of a topic's ACL, with who made it and the entries before and after it.
struct ACLAuditAddition: NamedStatement {
    static let sql = """
        INSERT INTO acl_audit (app_id, scope_kind, scope_id, name, actor, change, action, subject, before, after, at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
        """

    let appID: AppID
    let address: TopicAddress
    let actor: Principal
    let step: ACLChangePlan.Step
    let at: UnixMillis

    func makeBindings() -> PostgresBindings {
        let (kind, id) = StoredForm.columns(address.scope)
        let entry = step.change.entry
        return Self.bindings(
            """
            \(appID)\(kind)\(id)\(address.name.rawValue)\(actor.description)\(step.change.kind.rawValue)\
            \(entry.action.rawValue)\(entry.subject.description)\(StoredForm.entryList(step.before))\
            \(StoredForm.entryList(step.after))\(at)
            """)
    }
}
