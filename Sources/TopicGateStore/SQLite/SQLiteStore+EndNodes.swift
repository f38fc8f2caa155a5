import GRDB
public import TopicGateCore

extension SQLiteStore: EndNodeStore {
    public func attachEndNode(appID: AppID, gateway: ThingID, endNode: ThingID, at: UnixMillis) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO end_nodes (app_id, end_node_id, gateway_id, added_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (app_id, end_node_id) DO UPDATE SET gateway_id = excluded.gateway_id,
                        added_at = excluded.added_at, online = NULL, online_modified_at = NULL
                    WHERE end_nodes.gateway_id <> excluded.gateway_id
                    """
            ).execute(arguments: [appID.rawValue, endNode.rawValue, gateway.rawValue, at])
            guard db.changesCount > 0 else { return false }
            // The tokens another gateway minted for it end with its move.
            try db.cachedStatement(
                sql: """
                    DELETE FROM tokens WHERE app_id = ? AND principal_kind = 'thing' AND principal_id = ?
                        AND relayed_by IS NOT NULL AND relayed_by <> ?
                    """
            ).execute(arguments: [appID.rawValue, endNode.rawValue, gateway.rawValue])
            return true
        }
    }

    public func detachEndNode(appID: AppID, gateway: ThingID, endNode: ThingID) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(
                sql: "DELETE FROM end_nodes WHERE app_id = ? AND end_node_id = ? AND gateway_id = ?"
            ).execute(arguments: [appID.rawValue, endNode.rawValue, gateway.rawValue])
            guard db.changesCount > 0 else { return false }
            // The tokens the gateway minted for it end with it.
            try db.cachedStatement(
                sql: """
                    DELETE FROM tokens WHERE app_id = ? AND principal_kind = 'thing' AND principal_id = ?
                        AND relayed_by = ?
                    """
            ).execute(arguments: [appID.rawValue, endNode.rawValue, gateway.rawValue])
            return true
        }
    }

    public func endNodes(appID: AppID, gateway: ThingID, limit: Int, after: String?) async throws
        -> (endNodes: [EndNode], next: String?)
    {
        try await read { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT e.*, t.vendor_thing_id FROM end_nodes e
                        JOIN things t ON t.app_id = e.app_id AND t.thing_id = e.end_node_id
                        WHERE e.app_id = ? AND e.gateway_id = ? AND e.end_node_id > ?
                        ORDER BY e.end_node_id LIMIT ?
                        """),
                arguments: [appID.rawValue, gateway.rawValue, after ?? "", limit + 1])
            let page = rows.prefix(limit).map(Self.endNode)
            return (page, rows.count > limit ? page.last?.id.rawValue : nil)
        }
    }

    public func endNode(appID: AppID, id: ThingID) async throws -> EndNode? {
        try await readOneStatement { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT e.*, t.vendor_thing_id FROM end_nodes e
                        JOIN things t ON t.app_id = e.app_id AND t.thing_id = e.end_node_id
                        WHERE e.app_id = ? AND e.end_node_id = ?
                        """),
                arguments: [appID.rawValue, id.rawValue]
            ).map(Self.endNode)
        }
    }

    public func setEndNodeConnection(
        appID: AppID, gateway: ThingID, endNode: ThingID, online: Bool, at: UnixMillis
    ) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(
                sql: """
                    UPDATE end_nodes SET online = ?, online_modified_at = ?
                    WHERE app_id = ? AND end_node_id = ? AND gateway_id = ?
                    """
            ).execute(arguments: [online, at, appID.rawValue, endNode.rawValue, gateway.rawValue])
            return db.changesCount > 0
        }
    }

    static func endNode(_ row: Row) -> EndNode {
        EndNode(
            id: ThingID(row["end_node_id"] as String), vendorThingID: row["vendor_thing_id"],
            gateway: ThingID(row["gateway_id"] as String), addedAt: row["added_at"], online: row["online"],
            onlineModifiedAt: row["online_modified_at"])
    }
}
