import GRDB
public import TopicGateCore

extension SQLiteStore: TopicStore {
    public func insertTopic(_ topic: Topic, entries: [ACLEntry], limit: Int?) async throws -> QuotaInsertion {
        let (kind, id) = StoredForm.columns(topic.scope)
        let (creatorKind, creatorID) = StoredForm.columns(topic.creator)
        let outcome = try await write(conflict: { _ in StoredForm.topicExists(topic.appID, topic.address) }) {
            db -> QuotaInsertion in
            if let limit {
                // Counted in the write: no other write commits between the count and the insert.
                let created = try Self.topicCount(db, appID: topic.appID, creator: topic.creator)
                if created >= limit { return .limited(held: created) }
            }
            try db.cachedStatement(
                sql: """
                    INSERT INTO topics (app_id, scope_kind, scope_id, name, creator_kind, creator_id, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                topic.appID.rawValue, kind, id, topic.name.rawValue, creatorKind, creatorID, topic.createdAt,
            ])
            let topicID = db.lastInsertedRowID
            for entry in entries {
                try db.cachedStatement(
                    sql: "INSERT OR IGNORE INTO acl_entries (topic_id, action, subject, is_default) VALUES (?, ?, ?, ?)"
                ).execute(arguments: [topicID, entry.action.rawValue, entry.subject.description, entry.isDefault])
            }
            return .inserted
        }
        if outcome == .inserted { topicsChanged(.topic(topic.appID, topic.address)) }
        return outcome
    }

    public func topic(appID: AppID, address: TopicAddress) async throws -> (Topic, [ACLEntry])? {
        try await read { db in
            guard let row = try Self.topicRow(db, appID, address), let topic = Self.topic(row, appID: appID) else {
                return nil
            }
            return (topic, try Self.entries(db, topicID: row["topic_id"]))
        }
    }

    public func deleteTopic(appID: AppID, address: TopicAddress) async throws -> Bool {
        let (kind, id) = StoredForm.columns(address.scope)
        defer { topicsChanged(.topic(appID, address)) }
        return try await changesRow(
            "DELETE FROM topics WHERE app_id = ? AND scope_kind = ? AND scope_id = ? AND name = ?",
            [appID.rawValue, kind, id, address.name.rawValue])
    }

    public func topics(appID: AppID, scope: TopicScope, after: TopicName?, limit: Int) async throws -> [Topic] {
        let (kind, id) = StoredForm.columns(scope)
        return try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM topics WHERE app_id = ? AND scope_kind = ? AND scope_id = ? AND name > ?
                        ORDER BY name LIMIT ?
                        """),
                arguments: [appID.rawValue, kind, id, after?.rawValue ?? "", limit]
            ).compactMap { Self.topic($0, appID: appID) }
        }
    }

    /// `known` is not used: one writer at a time plans on the entries it reads in its transaction.
    public func applyACLChanges(
        appID: AppID, address: TopicAddress, changes: [ACLChange], actor: Principal, at time: UnixMillis,
        known: [ACLEntry]?
    ) async throws -> [ACLEntry] {
        let time = time.rawValue
        let (kind, id) = StoredForm.columns(address.scope)
        defer { topicsChanged(.topic(appID, address)) }
        return try await write { db in
            let topicID = try Self.existingTopicID(db, appID, address)
            let plan = try ACLChangePlan(entries: try Self.entries(db, topicID: topicID), changes: changes)
            for step in plan.steps {
                let (action, subject) = (step.change.entry.action.rawValue, step.change.entry.subject.description)
                if step.change.kind == .grant {
                    try db.cachedStatement(
                        sql: "INSERT INTO acl_entries (topic_id, action, subject, is_default) VALUES (?, ?, ?, 0)"
                    ).execute(arguments: [topicID, action, subject])
                } else {
                    try db.cachedStatement(
                        sql: "DELETE FROM acl_entries WHERE topic_id = ? AND action = ? AND subject = ?"
                    ).execute(arguments: [topicID, action, subject])
                }
                try db.cachedStatement(
                    sql: """
                        INSERT INTO acl_audit (app_id, scope_kind, scope_id, name, actor, change, action, subject,
                            before, after, at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """
                ).execute(arguments: [
                    appID.rawValue, kind, id, address.name.rawValue, actor.description, step.change.kind.rawValue,
                    action, subject, StoredForm.entryList(step.before), StoredForm.entryList(step.after), time,
                ])
            }
            try db.cachedStatement(sql: "DELETE FROM acl_audit WHERE at < ?").execute(arguments: [
                time - AuditRetention.span.wholeMilliseconds
            ])
            return plan.entries
        }
    }

    public func aclAudit(appID: AppID, address: TopicAddress, after: Int64?, limit: Int) async throws
        -> [(key: Int64, record: ACLAuditRecord)]
    {
        let (kind, id) = StoredForm.columns(address.scope)
        return try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM acl_audit WHERE app_id = ? AND scope_kind = ? AND scope_id = ? AND name = ?
                            AND audit_id > ?
                        ORDER BY audit_id LIMIT ?
                        """),
                arguments: [appID.rawValue, kind, id, address.name.rawValue, after ?? 0, limit]
            ).compactMap { row -> (key: Int64, record: ACLAuditRecord)? in
                guard let action = ACLAction(rawValue: row["action"]),
                    let subject = ACLSubject(parsing: row["subject"]),
                    let change = ACLChange.Kind(rawValue: row["change"])
                else { return nil }
                return (
                    row["audit_id"],
                    ACLAuditRecord(
                        at: UnixMillis(row["at"] as Int64), actor: StoredForm.actor(row["actor"]),
                        change: ACLChange(change, ACLEntry(action, subject)),
                        before: StoredForm.entryList(row["before"] as String),
                        after: StoredForm.entryList(row["after"] as String))
                )
            }
        }
    }

    public func subscribe(
        appID: AppID, address: TopicAddress, subscriber: Subscriber, at time: UnixMillis, limit: Int?
    ) async throws -> SubscriptionOutcome {
        let time = time.rawValue
        let (kind, id) = StoredForm.columns(subscriber)
        return try await write { db in
            let topicID = try Self.existingTopicID(db, appID, address)
            if let limit {
                let held = try Self.subscriptionCount(db, appID: appID, subscriber: subscriber)
                if held >= limit { return .limited(held: held) }
            }
            try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO subscriptions (topic_id, subscriber_kind, subscriber_id, created_at)
                    VALUES (?, ?, ?, ?)
                    """
            ).execute(arguments: [topicID, kind, id, time])
            return db.changesCount > 0 ? .added : .existing
        }
    }

    public func unsubscribe(appID: AppID, address: TopicAddress, subscriber: Subscriber) async throws -> Bool {
        let (kind, id) = StoredForm.columns(subscriber)
        return try await write { db in
            let topicID = try Self.existingTopicID(db, appID, address)
            try db.cachedStatement(
                sql: "DELETE FROM subscriptions WHERE topic_id = ? AND subscriber_kind = ? AND subscriber_id = ?"
            ).execute(arguments: [topicID, kind, id])
            return db.changesCount > 0
        }
    }

    public func topicCount(appID: AppID, creator: Principal) async throws -> Int {
        try await read { db in try Self.topicCount(db, appID: appID, creator: creator) }
    }

    private static func topicCount(_ db: Database, appID: AppID, creator: Principal) throws -> Int {
        let (kind, id) = StoredForm.columns(creator)
        return try Int.fetchOne(
            db.cachedStatement(
                sql: "SELECT COUNT(*) FROM topics WHERE app_id = ? AND creator_kind = ? AND creator_id = ?"),
            arguments: [appID.rawValue, kind, id]) ?? 0
    }

    private static func subscriptionCount(_ db: Database, appID: AppID, subscriber: Subscriber) throws -> Int {
        let (kind, id) = StoredForm.columns(subscriber)
        return try Int.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT COUNT(*) FROM subscriptions s JOIN topics t ON t.topic_id = s.topic_id
                    WHERE s.subscriber_kind = ? AND s.subscriber_id = ? AND t.app_id = ?
                    """),
            arguments: [kind, id, appID.rawValue]) ?? 0
    }

    public func isSubscribed(appID: AppID, address: TopicAddress, subscriber: Subscriber) async throws -> Bool {
        let (kind, id) = StoredForm.columns(subscriber)
        return try await read { db in
            let topicID = try Self.existingTopicID(db, appID, address)
            return try Bool.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT EXISTS (SELECT 1 FROM subscriptions WHERE topic_id = ? AND subscriber_kind = ?
                            AND subscriber_id = ?)
                        """),
                arguments: [topicID, kind, id]) ?? false
        }
    }

    public func accessContexts(appID: AppID, users: [UserID]) async throws -> [UserID: AccessContext] {
        try await read { db in try Self.accessContexts(db, appID: appID, users: users) }
    }

    public func subscriberContexts(appID: AppID, address: TopicAddress) async throws -> [Subscriber: AccessContext] {
        try await read { db in
            guard let row = try Self.topicRow(db, appID, address) else { return [:] }
            var result: [Subscriber: AccessContext] = [:]
            var users: [UserID] = []
            for subscription in try Row.fetchAll(
                db.cachedStatement(sql: "SELECT subscriber_kind, subscriber_id FROM subscriptions WHERE topic_id = ?"),
                arguments: [row["topic_id"] as Int64])
            {
                let id: String = subscription["subscriber_id"]
                if (subscription["subscriber_kind"] as String) == "user" {
                    users.append(UserID(id))
                } else {
                    result[.thing(ThingID(id))] = AccessContext(principal: .thing(ThingID(id)))
                }
            }
            for (user, context) in try Self.accessContexts(db, appID: appID, users: users) {
                result[.user(user)] = context
            }
            return result
        }
    }

    public func subscribers(appID: AppID, address: TopicAddress) async throws -> [Subscriber] {
        try await read { db in
            guard let row = try Self.topicRow(db, appID, address) else { return [] }
            return try Row.fetchAll(
                db.cachedStatement(sql: "SELECT subscriber_kind, subscriber_id FROM subscriptions WHERE topic_id = ?"),
                arguments: [row["topic_id"] as Int64]
            ).map { subscription -> Subscriber in
                let id: String = subscription[1]
                return (subscription[0] as String) == "user" ? .user(UserID(id)) : .thing(ThingID(id))
            }.sorted()
        }
    }

    /// Each user's groups and owned things (directly or through a group), in two queries.
    static func accessContexts(_ db: Database, appID: AppID, users: [UserID]) throws -> [UserID: AccessContext] {
        var contexts: [UserID: AccessContext] = [:]
        for user in users { contexts[user] = AccessContext(principal: .user(user)) }
        var groupMembers: [GroupID: [UserID]] = [:]
        for chunk in Self.chunks(users.map(\.rawValue)) {
            let rows = try Row.fetchAll(
                Self.statement(
                    db,
                    "SELECT user_id, group_id FROM group_members WHERE app_id = ? AND user_id IN "
                        + "(\(Self.marks(chunk.count)))",
                    cached: chunk.count <= 16),
                arguments: StatementArguments([appID.rawValue] + chunk))
            for row in rows {
                let user = UserID(row["user_id"] as String)
                let group = GroupID(row["group_id"] as String)
                contexts[user]?.groups.insert(group)
                groupMembers[group, default: []].append(user)
            }
        }
        for (kind, ids) in [("user", users.map(\.rawValue)), ("group", groupMembers.keys.map(\.rawValue))] {
            for chunk in Self.chunks(ids) {
                let rows = try Row.fetchAll(
                    Self.statement(
                        db,
                        """
                        SELECT thing_id, owner_id FROM thing_owners
                        WHERE app_id = ? AND owner_kind = ? AND owner_id IN (\(Self.marks(chunk.count)))
                        """,
                        cached: chunk.count <= 16),
                    arguments: StatementArguments([appID.rawValue, kind] + chunk))
                for row in rows {
                    let thing = ThingID(row["thing_id"] as String)
                    let owner: String = row["owner_id"]
                    let owners = kind == "user" ? [UserID(owner)] : groupMembers[GroupID(owner)] ?? []
                    for user in owners { contexts[user]?.ownedThings.insert(thing) }
                }
            }
        }
        return contexts
    }

    /// What a user, group or thing leaves among topics when it is deleted: its scope's topics
    /// (with their entries and subscriptions), every entry that names it and, for users and
    /// things, their subscriptions.
    static func deleteTopics(of holder: ACLSubject, _ db: Database, appID: String) throws {
        if let scope = StoredForm.scope(of: holder) {
            let (kind, id) = StoredForm.columns(scope)
            try db.cachedStatement(sql: "DELETE FROM topics WHERE app_id = ? AND scope_kind = ? AND scope_id = ?")
                .execute(arguments: [appID, kind, id])
        }
        try db.cachedStatement(
            sql:
                "DELETE FROM acl_entries WHERE subject = ? AND topic_id IN (SELECT topic_id FROM topics WHERE "
                + "app_id = ?)"
        ).execute(arguments: [holder.description, appID])
        if let subscriber = StoredForm.subscriber(of: holder) {
            let (kind, id) = StoredForm.columns(subscriber)
            try db.cachedStatement(
                sql: """
                    DELETE FROM subscriptions WHERE subscriber_kind = ? AND subscriber_id = ?
                        AND topic_id IN (SELECT topic_id FROM topics WHERE app_id = ?)
                    """
            ).execute(arguments: [kind, id, appID])
        }
    }

    static func topicRow(_ db: Database, _ appID: AppID, _ address: TopicAddress) throws -> Row? {
        let (kind, id) = StoredForm.columns(address.scope)
        return try Row.fetchOne(
            db.cachedStatement(
                sql: "SELECT * FROM topics WHERE app_id = ? AND scope_kind = ? AND scope_id = ? AND name = ?"),
            arguments: [appID.rawValue, kind, id, address.name.rawValue])
    }

    /// The topic's row ID; `TOPIC_NOT_FOUND` when there is no such topic.
    static func existingTopicID(_ db: Database, _ appID: AppID, _ address: TopicAddress) throws -> Int64 {
        guard let row = try topicRow(db, appID, address) else { throw KiiError.topicNotFound(appID: appID, address) }
        return row["topic_id"]
    }

    /// The topic a `topics` row holds; nil for a scope or name it cannot hold.
    static func topic(_ row: Row, appID: AppID) -> Topic? {
        guard let scope = StoredForm.scope(kind: row["scope_kind"], id: row["scope_id"]),
            let name = TopicName(rawValue: row["name"])
        else { return nil }
        return Topic(
            appID: appID, address: TopicAddress(scope: scope, name: name),
            creator: StoredForm.principal(kind: row["creator_kind"], id: row["creator_id"]) ?? .anonymous,
            createdAt: row["created_at"])
    }

    static func entries(_ db: Database, topicID: Int64) throws -> [ACLEntry] {
        try Row.fetchAll(
            db.cachedStatement(sql: "SELECT action, subject, is_default FROM acl_entries WHERE topic_id = ?"),
            arguments: [topicID]
        ).compactMap { row in
            guard let action = ACLAction(rawValue: row["action"]), let subject = ACLSubject(parsing: row["subject"])
            else {
                return nil
            }
            return ACLEntry(action, subject, isDefault: row["is_default"])
        }.sorted()
    }

    static func chunks(_ values: [String], size: Int = 500) -> [[String]] {
        stride(from: 0, to: values.count, by: size).map { Array(values[$0..<min($0 + size, values.count)]) }
    }

    /// A prepared statement; `cached` keeps it for the next call (for the few shapes an `IN`
    /// list of up to 16 takes; longer lists are prepared each time, so the cache stays small).
    static func statement(_ db: Database, _ sql: String, cached: Bool) throws -> Statement {
        cached ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
    }

    static func marks(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
