import GRDB
public import TopicGateCore

extension SQLiteStore: OperatorStore {
    public func appCounts(appID: AppID) async throws -> AppCounts {
        try await read { db in
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT (SELECT COUNT(*) FROM users WHERE app_id = :app) AS users,
                            (SELECT COUNT(*) FROM users WHERE app_id = :app AND password_hash IS NULL) AS pseudo,
                            (SELECT COUNT(*) FROM groups WHERE app_id = :app) AS groups,
                            (SELECT COUNT(*) FROM things WHERE app_id = :app) AS things,
                            (SELECT COUNT(*) FROM topics WHERE app_id = :app) AS topics,
                            (SELECT COUNT(*) FROM installations WHERE app_id = :app AND revoked_at IS NULL)
                                AS installations
                        """),
                arguments: ["app": appID.rawValue])
            return AppCounts(
                users: row?[0] ?? 0, pseudoUsers: row?[1] ?? 0, groups: row?[2] ?? 0, things: row?[3] ?? 0,
                topics: row?[4] ?? 0, installations: row?[5] ?? 0)
        }
    }

    public func searchTopics(appID: AppID, containing text: String, limit: Int) async throws -> [Topic] {
        let pattern = Self.containsPattern(text)
        return try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM topics t WHERE t.app_id = :app AND (
                            t.name LIKE :pattern ESCAPE '\\' OR t.scope_id LIKE :pattern ESCAPE '\\'
                            OR t.creator_id LIKE :pattern ESCAPE '\\'
                            OR (t.scope_kind = 'user' AND t.scope_id IN (SELECT user_id FROM users
                                WHERE app_id = :app AND login_name LIKE :pattern ESCAPE '\\'))
                            OR (t.creator_kind = 'user' AND t.creator_id IN (SELECT user_id FROM users
                                WHERE app_id = :app AND login_name LIKE :pattern ESCAPE '\\'))
                            OR (t.scope_kind = 'group' AND t.scope_id IN (SELECT group_id FROM groups
                                WHERE app_id = :app AND name LIKE :pattern ESCAPE '\\'))
                            OR (t.scope_kind = 'thing' AND t.scope_id IN (SELECT thing_id FROM things
                                WHERE app_id = :app AND vendor_thing_id LIKE :pattern ESCAPE '\\'))
                            OR (t.creator_kind = 'thing' AND t.creator_id IN (SELECT thing_id FROM things
                                WHERE app_id = :app AND vendor_thing_id LIKE :pattern ESCAPE '\\')))
                        ORDER BY CASE t.scope_kind WHEN 'app' THEN 0 WHEN 'group' THEN 1 WHEN 'user' THEN 2 ELSE 3 END,
                            t.scope_id, t.name
                        LIMIT :limit
                        """),
                arguments: ["app": appID.rawValue, "pattern": pattern, "limit": limit]
            ).compactMap { row in
                guard let scope = StoredForm.scope(kind: row["scope_kind"], id: row["scope_id"]),
                    let name = TopicName(rawValue: row["name"])
                else { return nil }
                return Topic(
                    appID: appID, address: TopicAddress(scope: scope, name: name),
                    creator: StoredForm.principal(kind: row["creator_kind"], id: row["creator_id"]) ?? .anonymous,
                    createdAt: row["created_at"])
            }
        }
    }
}
