internal import PostgresNIO
public import TopicGateCore

extension PostgresStore: GroupStore {
    public func insertGroup(_ group: Group, members: [UserID]) async throws -> [UserID] {
        try await write(conflict: { _ in StoredForm.groupConflict(group.id) }) { connection in
            try await connection.run(
                """
                INSERT INTO groups (app_id, group_id, name, owner_id, created_at, modified_at)
                VALUES (\(group.appID), \(group.id), \(group.name), \(group.owner), \(group.createdAt),
                    \(group.modifiedAt))
                """)
            var notFound: [UserID] = []
            for member in [group.owner] + members {
                let added = try await connection.count(
                    """
                    INSERT INTO group_members (app_id, group_id, user_id)
                    SELECT app_id, \(group.id), user_id FROM users WHERE app_id = \(group.appID) AND user_id = \(member)
                    ON CONFLICT DO NOTHING RETURNING 1
                    """)
                if added == 0, !notFound.contains(member),
                    try await connection.first(
                        "SELECT 1 FROM users WHERE app_id = \(group.appID) AND user_id = \(member)") == nil
                {
                    notFound.append(member)
                }
            }
            return notFound
        }
    }

    public func group(appID: AppID, id: GroupID) async throws -> Group? {
        try await read { connection in
            try await connection.first("SELECT * FROM groups WHERE app_id = \(appID) AND group_id = \(id)").map(
                Self.group)
        }
    }

    public func updateGroup(appID: AppID, id: GroupID, _ change: @escaping @Sendable (inout Group) throws -> Void)
        async throws -> Group?
    {
        try await write { connection in
            // The row locked until the commit: another change of the group waits for this one.
            guard
                var group = try await connection.first(
                    "SELECT * FROM groups WHERE app_id = \(appID) AND group_id = \(id) FOR UPDATE" as PostgresQuery
                ).map(Self.group)
            else { return nil }
            try change(&group)
            try await connection.run(
                """
                UPDATE groups SET name = \(group.name), owner_id = \(group.owner), modified_at = \(group.modifiedAt)
                WHERE app_id = \(group.appID) AND group_id = \(group.id)
                """)
            try await connection.run(
                """
                INSERT INTO group_members (app_id, group_id, user_id) VALUES (\(group.appID), \(group.id), \(group.owner))
                ON CONFLICT DO NOTHING
                """)
            return group
        }
    }

    public func deleteGroup(appID: AppID, id: GroupID) async throws -> Bool {
        try await write { connection in
            try await connection.run(
                "DELETE FROM thing_owners WHERE app_id = \(appID) AND owner_kind = 'group' AND owner_id = \(id)")
            try await Self.deleteTopics(of: .group(id), connection, appID: appID)
            return try await connection.count(
                "DELETE FROM groups WHERE app_id = \(appID) AND group_id = \(id) RETURNING 1") > 0
        }
    }

    public func addMember(appID: AppID, group: GroupID, user: UserID) async throws -> Bool {
        try await changesRow(
            """
            INSERT INTO group_members (app_id, group_id, user_id) VALUES (\(appID), \(group), \(user))
            ON CONFLICT DO NOTHING RETURNING 1
            """)
    }

    public func removeMember(appID: AppID, group: GroupID, user: UserID) async throws -> Bool {
        try await changesRow(
            """
            DELETE FROM group_members WHERE app_id = \(appID) AND group_id = \(group) AND user_id = \(user)
                AND user_id <> COALESCE(
                    (SELECT owner_id FROM groups WHERE app_id = \(appID) AND group_id = \(group) FOR SHARE), '')
            RETURNING 1
            """)
    }

    public func members(appID: AppID, group: GroupID) async throws -> [UserID] {
        try await read { connection in
            try await connection.rows(
                "SELECT user_id FROM group_members WHERE app_id = \(appID) AND group_id = \(group) ORDER BY user_id"
            ).map { try $0("user_id") }
        }
    }

    public func groups(appID: AppID, ownedBy user: UserID) async throws -> [Group] {
        try await read { connection in
            try await connection.rows(
                "SELECT * FROM groups WHERE app_id = \(appID) AND owner_id = \(user) ORDER BY created_at, group_id"
            ).map(Self.group)
        }
    }

    public func groups(appID: AppID, withMember user: UserID) async throws -> [Group] {
        try await read { connection in
            try await connection.rows(
                """
                SELECT g.* FROM groups g JOIN group_members m ON m.app_id = g.app_id AND m.group_id = g.group_id
                WHERE m.app_id = \(appID) AND m.user_id = \(user) ORDER BY g.created_at, g.group_id
                """
            ).map(Self.group)
        }
    }

    public func memberGroupIDs(appID: AppID, user: UserID) async throws -> Set<GroupID> {
        try await read { connection in
            Set(
                try await connection.rows(
                    "SELECT group_id FROM group_members WHERE app_id = \(appID) AND user_id = \(user)"
                ).map { try $0("group_id") })
        }
    }

    static func group(_ row: PostgresColumns) throws -> Group {
        Group(
            id: try row("group_id"), appID: try row("app_id"), name: try row("name"), owner: try row("owner_id"),
            createdAt: try row("created_at"), modifiedAt: try row("modified_at"))
    }
}
