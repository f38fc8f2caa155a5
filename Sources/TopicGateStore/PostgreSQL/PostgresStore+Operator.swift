internal import PostgresNIO
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
            ).compactMap { try Self.topic($0, appID: appID) }
        }
    }
}

extension PostgresStore {
    public func searchPrincipals(appID: AppID, containing text: String, limit: Int) async throws
        -> [PrincipalMatch]
    {
        let pattern = Self.containsPattern(text)
        return try await read { connection in
            let users = try await connection.rows(
                """
                SELECT user_id, login_name, display_name, email_address, phone_number,
                    password_hash IS NULL AS pseudo, disabled
                FROM users WHERE app_id = \(appID) AND (user_id ILIKE \(pattern) ESCAPE '\\'
                    OR login_name ILIKE \(pattern) ESCAPE '\\' OR email_address ILIKE \(pattern) ESCAPE '\\'
                    OR phone_number ILIKE \(pattern) ESCAPE '\\' OR display_name ILIKE \(pattern) ESCAPE '\\')
                ORDER BY login_name IS NULL, login_name, user_id LIMIT \(limit)
                """
            ).map { row in
                let pseudo: Bool = try row("pseudo")
                let login: String? = try row("login_name")
                let display: String? = try row("display_name")
                let email: String? = try row("email_address")
                let phone: String? = try row("phone_number")
                return PrincipalMatch(
                    kind: .user, id: try row("user_id"), name: login ?? display,
                    detail: email ?? phone ?? (pseudo ? "pseudo user" : nil), disabled: try row("disabled"))
            }
            let groups = try await connection.rows(
                """
                SELECT group_id, name FROM groups WHERE app_id = \(appID)
                    AND (group_id ILIKE \(pattern) ESCAPE '\\' OR name ILIKE \(pattern) ESCAPE '\\')
                ORDER BY name, group_id LIMIT \(limit)
                """
            ).map { row in
                PrincipalMatch(
                    kind: .group, id: try row("group_id"), name: try row("name"), detail: nil, disabled: false)
            }
            let things = try await connection.rows(
                """
                SELECT thing_id, vendor_thing_id, disabled FROM things WHERE app_id = \(appID)
                    AND (thing_id ILIKE \(pattern) ESCAPE '\\' OR vendor_thing_id ILIKE \(pattern) ESCAPE '\\')
                ORDER BY vendor_thing_id LIMIT \(limit)
                """
            ).map { row in
                PrincipalMatch(
                    kind: .thing, id: try row("thing_id"), name: try row("vendor_thing_id"), detail: nil,
                    disabled: try row("disabled"))
            }
            return users + groups + things
        }
    }

    public func topicsWithEntries(appID: AppID, limit: Int) async throws -> [(Topic, [ACLEntry])] {
        try await read { connection in
            var found: [(id: Int64, topic: Topic, entries: [ACLEntry])] = []
            for row in try await connection.rows(
                """
                SELECT t.topic_id, t.scope_kind, t.scope_id, t.name, t.creator_kind, t.creator_id, t.created_at,
                    e.action, e.subject, e.is_default
                FROM (SELECT * FROM topics WHERE app_id = \(appID) ORDER BY topic_id LIMIT \(limit)) t
                LEFT JOIN acl_entries e ON e.topic_id = t.topic_id
                ORDER BY t.topic_id
                """)
            {
                let id: Int64 = try row("topic_id")
                if found.last?.id != id {
                    guard let topic = try Self.topic(row, appID: appID) else { continue }
                    found.append((id, topic, []))
                }
                let action: String? = try row("action")
                let subject: String? = try row("subject")
                if let action = action.flatMap(ACLAction.init(rawValue:)),
                    let subject = subject.flatMap(ACLSubject.init(parsing:)),
                    found.last?.id == id
                {
                    found[found.count - 1].entries.append(ACLEntry(action, subject, isDefault: try row("is_default")))
                }
            }
            return found.map { ($0.topic, $0.entries.sorted()) }
        }
    }
}
