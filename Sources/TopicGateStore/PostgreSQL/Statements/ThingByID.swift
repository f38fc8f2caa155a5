internal import PostgresNIO
import TopicGateCore

/// A thing's row, found by its ID.
struct ThingByID: NamedStatement {
    /// The columns of a `things` row that `PostgresStore.thing` reads.
    static let columns = "app_id, thing_id, vendor_thing_id, password_hash, fields, disabled, created_at, modified_at"
    static let sql = "SELECT \(columns) FROM things WHERE app_id = $1 AND thing_id = $2"

    let appID: AppID
    let id: ThingID

    func makeBindings() -> PostgresBindings { Self.bindings("\(appID)\(id)") }
}
