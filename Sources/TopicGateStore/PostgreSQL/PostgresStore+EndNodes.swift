internal import PostgresNIO
public import TopicGateCore

extension PostgresStore: EndNodeStore {
    public func attachEndNode(appID: AppID, gateway: ThingID, endNode: ThingID, at: UnixMillis) async throws -> Bool {
        // The tokens another gateway minted for it end with its move.
        try await changesRow(
            """
            WITH attached AS (
                INSERT INTO end_nodes (app_id, end_node_id, gateway_id, added_at)
                VALUES (\(appID), \(endNode), \(gateway), \(at))
                ON CONFLICT (app_id, end_node_id) DO UPDATE SET gateway_id = excluded.gateway_id,
                    added_at = excluded.added_at, online = NULL, online_modified_at = NULL
                WHERE end_nodes.gateway_id <> excluded.gateway_id
                RETURNING 1
            ), ended AS (
                DELETE FROM tokens WHERE EXISTS (SELECT 1 FROM attached) AND app_id = \(appID)
                    AND principal_kind = 'thing' AND principal_id = \(endNode)
                    AND relayed_by IS NOT NULL AND relayed_by <> \(gateway)
            )
            SELECT 1 FROM attached
            """)
    }

    public func detachEndNode(appID: AppID, gateway: ThingID, endNode: ThingID) async throws -> Bool {
        // The tokens the gateway minted for it end with it.
        try await changesRow(
            """
            WITH detached AS (
                DELETE FROM end_nodes WHERE app_id = \(appID) AND end_node_id = \(endNode) AND gateway_id = \(gateway)
                RETURNING 1
            ), ended AS (
                DELETE FROM tokens WHERE EXISTS (SELECT 1 FROM detached) AND app_id = \(appID)
                    AND principal_kind = 'thing' AND principal_id = \(endNode) AND relayed_by = \(gateway)
            )
            SELECT 1 FROM detached
            """)
    }

    public func endNodes(appID: AppID, gateway: ThingID, limit: Int, after: String?) async throws
        -> (endNodes: [EndNode], next: String?)
    {
        let after = after ?? ""
        return try await read { connection in
            let rows = try await connection.rows(
                """
                SELECT e.*, t.vendor_thing_id FROM end_nodes e
                JOIN things t ON t.app_id = e.app_id AND t.thing_id = e.end_node_id
                WHERE e.app_id = \(appID) AND e.gateway_id = \(gateway) AND e.end_node_id COLLATE "C" > \(after)
                ORDER BY e.end_node_id COLLATE "C" LIMIT \(limit + 1)
                """)
            let page = try rows.prefix(limit).map(Self.endNode)
            return (page, rows.count > limit ? page.last?.id.rawValue : nil)
        }
    }

    public func endNode(appID: AppID, id: ThingID) async throws -> EndNode? {
        try await read { connection in
            try await connection.first(EndNodeByID(appID: appID, id: id)).map(Self.endNode)
        }
    }

    public func setEndNodeConnection(
        appID: AppID, gateway: ThingID, endNode: ThingID, online: Bool, at: UnixMillis
    ) async throws -> Bool {
        try await changesRow(
            """
            UPDATE end_nodes SET online = \(online), online_modified_at = \(at)
            WHERE app_id = \(appID) AND end_node_id = \(endNode) AND gateway_id = \(gateway) RETURNING 1
            """)
    }

    static func endNode(_ row: PostgresColumns) throws -> EndNode {
        EndNode(
            id: try row("end_node_id"), vendorThingID: try row("vendor_thing_id"), gateway: try row("gateway_id"),
            addedAt: try row("added_at"), online: try row("online"), onlineModifiedAt: try row("online_modified_at"))
    }
}
