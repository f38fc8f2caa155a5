internal import PostgresNIO
import TopicGateCore

/// A topic's row with its ACL entries, found by its app, scope and name, in one round trip: a
/// row per entry (the topic's columns repeated), or one row with no entry.
struct TopicWithEntries: NamedStatement {
    static let sql = """
        SELECT t.topic_id, t.app_id, t.scope_kind, t.scope_id, t.name, t.creator_kind, t.creator_id, t.created_at,
            e.action, e.subject, e.is_default
        FROM topics t LEFT JOIN acl_entries e ON e.topic_id = t.topic_id
        WHERE t.app_id = $1 AND t.scope_kind = $2 AND t.scope_id = $3 AND t.name = $4
        """

    let appID: AppID
    let address: TopicAddress

    func makeBindings() -> PostgresBindings {
        let (kind, id) = StoredForm.columns(address.scope)
        return Self.bindings("\(appID)\(kind)\(id)\(address.name.rawValue)")
    }
}
