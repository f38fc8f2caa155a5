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
            ).compactMap { Self.topic($0, appID: appID) }
        }
    }
}

extension SQLiteStore {
    public func searchPrincipals(appID: AppID, containing text: String, limit: Int) async throws
        -> [PrincipalMatch]
    {
        let arguments: StatementArguments = [
            "app": appID.rawValue, "pattern": Self.containsPattern(text), "limit": limit,
        ]
        return try await read { db in
            let users = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT user_id, login_name, display_name, email_address, phone_number,
                            password_hash IS NULL AS pseudo, disabled
                        FROM users WHERE app_id = :app AND (user_id LIKE :pattern ESCAPE '\\'
                            OR login_name LIKE :pattern ESCAPE '\\' OR email_address LIKE :pattern ESCAPE '\\'
                            OR phone_number LIKE :pattern ESCAPE '\\' OR display_name LIKE :pattern ESCAPE '\\')
                        ORDER BY login_name IS NULL, login_name, user_id LIMIT :limit
                        """), arguments: arguments
            ).map { row in
                PrincipalMatch(
                    kind: .user, id: row["user_id"], name: row["login_name"] ?? row["display_name"],
                    detail: row["email_address"] ?? row["phone_number"] ?? (row["pseudo"] ? "pseudo user" : nil),
                    disabled: row["disabled"])
            }
            let groups = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT group_id, name FROM groups WHERE app_id = :app
                            AND (group_id LIKE :pattern ESCAPE '\\' OR name LIKE :pattern ESCAPE '\\')
                        ORDER BY name, group_id LIMIT :limit
                        """), arguments: arguments
            ).map { row in
                PrincipalMatch(kind: .group, id: row["group_id"], name: row["name"], detail: nil, disabled: false)
            }
            let things = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT thing_id, vendor_thing_id, disabled FROM things WHERE app_id = :app
                            AND (thing_id LIKE :pattern ESCAPE '\\' OR vendor_thing_id LIKE :pattern ESCAPE '\\')
                        ORDER BY vendor_thing_id LIMIT :limit
                        """), arguments: arguments
            ).map { row in
                PrincipalMatch(
                    kind: .thing, id: row["thing_id"], name: row["vendor_thing_id"], detail: nil,
                    disabled: row["disabled"])
            }
            return users + groups + things
        }
    }

    public func topicsWithEntries(appID: AppID, limit: Int) async throws -> [(Topic, [ACLEntry])] {
        try await read { db in
            var found: [(id: Int64, topic: Topic, entries: [ACLEntry])] = []
            for row in try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT t.topic_id, t.scope_kind, t.scope_id, t.name, t.creator_kind, t.creator_id, t.created_at,
                            e.action, e.subject, e.is_default
                        FROM (SELECT * FROM topics WHERE app_id = ? ORDER BY topic_id LIMIT ?) t
                        LEFT JOIN acl_entries e ON e.topic_id = t.topic_id
                        ORDER BY t.topic_id
                        """), arguments: [appID.rawValue, limit])
            {
                let id: Int64 = row["topic_id"]
                if found.last?.id != id {
                    guard let topic = Self.topic(row, appID: appID) else { continue }
                    found.append((id, topic, []))
                }
                if let action = (row["action"] as String?).flatMap(ACLAction.init(rawValue:)),
                    let subject = (row["subject"] as String?).flatMap(ACLSubject.init(parsing:)), found.last?.id == id
                {
                    found[found.count - 1].entries.append(ACLEntry(action, subject, isDefault: row["is_default"]))
                }
            }
            return found.map { ($0.topic, $0.entries.sorted()) }
        }
    }
}
