import PostgresNIO
public import TopicGateCore

extension PostgresStore: OperatorStore {
    public func appCounts(appID: AppID) async throws -> AppCounts {
        try await read { connection in
            let row = try await connection.first(
                """
                SELECT (SELECT COUNT(*) FROM users WHERE app_id = \(appID)) AS users,
                    (SELECT COUNT(*) FROM users WHERE app_id = \(appID) AND password_hash IS NULL) AS pseudo,
                    (SELECT COUNT(*) FROM groups WHERE app_id = \(appID)) AS groups,
                    (SELECT COUNT(*) FROM things WHERE app_id = \(appID)) AS things,
                    (SELECT COUNT(*) FROM topics WHERE app_id = \(appID)) AS topics,
                    (SELECT COUNT(*) FROM installations WHERE app_id = \(appID) AND revoked_at IS NULL)
                        AS installations
                """)
            func count(_ name: String) throws -> Int { Int(try row?(name, as: Int64.self) ?? 0) }
            return AppCounts(
                users: try count("users"), pseudoUsers: try count("pseudo"), groups: try count("groups"),
                things: try count("things"), topics: try count("topics"), installations: try count("installations"))
        }
    }

    public func searchTopics(appID: AppID, containing text: String, limit: Int) async throws -> [Topic] {
        let pattern = Self.containsPattern(text)
        return try await read { connection in
            try await connection.rows(
                """
                SELECT * FROM topics t WHERE t.app_id = \(appID) AND (
                    t.name ILIKE \(pattern) ESCAPE '\\' OR t.scope_id ILIKE \(pattern) ESCAPE '\\'
                    OR t.creator_id ILIKE \(pattern) ESCAPE '\\'
                    OR (t.scope_kind = 'user' AND t.scope_id IN (SELECT user_id FROM users
                        WHERE app_id = \(appID) AND login_name ILIKE \(pattern) ESCAPE '\\'))
                    OR (t.creator_kind = 'user' AND t.creator_id IN (SELECT user_id FROM users
                        WHERE app_id = \(appID) AND login_name ILIKE \(pattern) ESCAPE '\\'))
                    OR (t.scope_kind = 'group' AND t.scope_id IN (SELECT group_id FROM groups
                        WHERE app_id = \(appID) AND name ILIKE \(pattern) ESCAPE '\\'))
                    OR (t.scope_kind = 'thing' AND t.scope_id IN (SELECT thing_id FROM things
                        WHERE app_id = \(appID) AND vendor_thing_id ILIKE \(pattern) ESCAPE '\\'))
                    OR (t.creator_kind = 'thing' AND t.creator_id IN (SELECT thing_id FROM things
                        WHERE app_id = \(appID) AND vendor_thing_id ILIKE \(pattern) ESCAPE '\\')))
                ORDER BY CASE t.scope_kind WHEN 'app' THEN 0 WHEN 'group' THEN 1 WHEN 'user' THEN 2 ELSE 3 END,
                    t.scope_id, t.name
                LIMIT \(limit)
                """
            ).compactMap { row in
                guard let scope = StoredForm.scope(kind: try row("scope_kind"), id: try row("scope_id")),
                    let name = TopicName(rawValue: try row("name"))
                else { return nil }
                return Topic(
                    appID: appID, address: TopicAddress(scope: scope, name: name),
                    creator: StoredForm.principal(kind: try row("creator_kind"), id: try row("creator_id"))
                        ?? .anonymous,
                    createdAt: try row("created_at"))
            }
        }
    }
}
