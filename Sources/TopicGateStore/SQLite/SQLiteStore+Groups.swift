import GRDB
public import TopicGateCore

extension SQLiteStore: GroupStore {
    public func insertGroup(_ group: Group, members: [UserID]) async throws -> [UserID] {
        try await write(conflict: { _ in StoredForm.groupConflict(group.id) }) { db in
            let app = group.appID.rawValue
            try db.cachedStatement(
                sql: """
                    INSERT INTO groups (app_id, group_id, name, owner_id, created_at, modified_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                app, group.id.rawValue, group.name, group.owner.rawValue, group.createdAt, group.modifiedAt,
            ])
            var notFound: [UserID] = []
            for member in [group.owner] + members {
                let exists =
                    try Bool.fetchOne(
                        db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM users WHERE app_id = ? AND user_id = ?)"),
                        arguments: [app, member.rawValue]) ?? false
                if exists {
                    try db.cachedStatement(
                        sql: "INSERT OR IGNORE INTO group_members (app_id, group_id, user_id) VALUES (?, ?, ?)"
                    ).execute(arguments: [app, group.id.rawValue, member.rawValue])
                } else if !notFound.contains(member) {
                    notFound.append(member)
                }
            }
            return notFound
        }
    }

    public func group(appID: AppID, id: GroupID) async throws -> Group? {
        try await read { db in try Self.group(db, appID: appID, id: id) }
    }

    static func group(_ db: Database, appID: AppID, id: GroupID) throws -> Group? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM groups WHERE app_id = ? AND group_id = ?"),
            arguments: [appID.rawValue, id.rawValue]
        ).map(Self.group)
    }

    public func updateGroup(appID: AppID, id: GroupID, _ change: @escaping @Sendable (inout Group) throws -> Void)
        async throws -> Group?
    {
        try await write { db in
            // Read inside the write transaction: no other write commits between this read and the
            // update.
            guard var group = try Self.group(db, appID: appID, id: id) else { return nil }
            try change(&group)
            try db.cachedStatement(
                sql: "UPDATE groups SET name = ?, owner_id = ?, modified_at = ? WHERE app_id = ? AND group_id = ?"
            ).execute(arguments: [
                group.name, group.owner.rawValue, group.modifiedAt, group.appID.rawValue, group.id.rawValue,
            ])
            try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO group_members (app_id, group_id, user_id) VALUES (?, ?, ?)"
            ).execute(arguments: [group.appID.rawValue, group.id.rawValue, group.owner.rawValue])
            return group
        }
    }

    public func deleteGroup(appID: AppID, id: GroupID) async throws -> Bool {
        // Its topics and every entry naming it are gone.
        defer { topicsChanged(.all) }
        return try await write { db in
            try db.cachedStatement(
                sql: "DELETE FROM thing_owners WHERE app_id = ? AND owner_kind = 'group' AND owner_id = ?"
            ).execute(arguments: [appID.rawValue, id.rawValue])
            try Self.deleteTopics(of: .group(id), db, appID: appID.rawValue)
            try db.cachedStatement(sql: "DELETE FROM groups WHERE app_id = ? AND group_id = ?").execute(arguments: [
                appID.rawValue, id.rawValue,
            ])
            return db.changesCount > 0
        }
    }

    public func addMember(appID: AppID, group: GroupID, user: UserID) async throws -> Bool {
        try await changesRow(
            "INSERT OR IGNORE INTO group_members (app_id, group_id, user_id) VALUES (?, ?, ?)",
            [appID.rawValue, group.rawValue, user.rawValue])
    }

    public func removeMember(appID: AppID, group: GroupID, user: UserID) async throws -> Bool {
        try await changesRow(
            """
            DELETE FROM group_members WHERE app_id = ? AND group_id = ? AND user_id = ?
                AND user_id <> COALESCE((SELECT owner_id FROM groups WHERE app_id = ? AND group_id = ?), '')
            """,
            [appID.rawValue, group.rawValue, user.rawValue, appID.rawValue, group.rawValue])
    }

    public func members(appID: AppID, group: GroupID) async throws -> [UserID] {
        try await read { db in
            try String.fetchAll(
                db.cachedStatement(
                    sql: "SELECT user_id FROM group_members WHERE app_id = ? AND group_id = ? ORDER BY user_id"),
                arguments: [appID.rawValue, group.rawValue]
            ).map(UserID.init(rawValue:))
        }
    }

    public func groups(appID: AppID, ownedBy user: UserID) async throws -> [Group] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: "SELECT * FROM groups WHERE app_id = ? AND owner_id = ? ORDER BY created_at, group_id"),
                arguments: [appID.rawValue, user.rawValue]
            ).map(Self.group)
        }
    }

    public func groups(appID: AppID, withMember user: UserID) async throws -> [Group] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT g.* FROM groups g JOIN group_members m ON m.app_id = g.app_id AND m.group_id = g.group_id
                        WHERE m.app_id = ? AND m.user_id = ? ORDER BY g.created_at, g.group_id
                        """),
                arguments: [appID.rawValue, user.rawValue]
            ).map(Self.group)
        }
    }

    public func memberGroupIDs(appID: AppID, user: UserID) async throws -> Set<GroupID> {
        try await read { db in
            Set(
                try String.fetchAll(
                    db.cachedStatement(sql: "SELECT group_id FROM group_members WHERE app_id = ? AND user_id = ?"),
                    arguments: [appID.rawValue, user.rawValue]
                ).map(GroupID.init(rawValue:)))
        }
    }

    static func group(_ row: Row) -> Group {
        Group(
            id: GroupID(row["group_id"] as String), appID: AppID(row["app_id"] as String), name: row["name"],
            owner: UserID(row["owner_id"] as String), createdAt: row["created_at"], modifiedAt: row["modified_at"])
    }
}
