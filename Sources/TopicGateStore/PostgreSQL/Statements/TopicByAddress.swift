internal import PostgresNIO
import TopicGateCore

/// A topic's row, found by its app, scope and name.
struct TopicByAddress: NamedStatement {
    /// The columns of a `topics` row that `PostgresStore.topic` reads, with its ID.
    static let columns = "topic_id, app_id, scope_kind, scope_id, name, creator_kind, creator_id, created_at"
    static let sql = """
        SELECT \(columns) FROM topics WHERE app_id = $1 AND scope_kind = $2 AND scope_id = $3 AND name = $4
        """

    let appID: AppID
    let address: TopicAddress

    func makeBindings() -> PostgresBindings {
        let (kind, id) = StoredForm.columns(address.scope)
        return Self.bindings("\(appID)\(kind)\(id)\(address.name.rawValue)")
    }
}
