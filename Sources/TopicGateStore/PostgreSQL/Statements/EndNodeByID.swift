internal import PostgresNIO
import TopicGateCore

/// An end node's row with its vendor thing ID, found by its thing ID.
struct EndNodeByID: NamedStatement {
    static let sql = """
        SELECT e.end_node_id, e.gateway_id, e.added_at, e.online, e.online_modified_at, t.vendor_thing_id
        FROM end_nodes e JOIN things t ON t.app_id = e.app_id AND t.thing_id = e.end_node_id
        WHERE e.app_id = $1 AND e.end_node_id = $2
        """

    let appID: AppID
    let id: ThingID

    func makeBindings() -> PostgresBindings { Self.bindings("\(appID)\(id)") }
}
