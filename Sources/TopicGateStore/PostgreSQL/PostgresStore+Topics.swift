internal import PostgresNIO
public import TopicGateCore

extension PostgresStore: TopicStore {
    public func insertTopic(_ topic: Topic, entries: [ACLEntry], limit: Int?) async throws -> QuotaInsertion {
        let (kind, id) = StoredForm.columns(topic.scope)
        let (creatorKind, creatorID) = StoredForm.columns(topic.creator)
        return try await write(conflict: { _ in StoredForm.topicExists(topic.appID, topic.address) }) {
            connection -> QuotaInsertion in
            if let limit {
                try await Self.lockQuota(connection, "topics", topic.appID, topic.creator)
                let created = try await Self.topicCount(connection, appID: topic.appID, creator: topic.creator)
                if created >= limit { return .limited(held: created) }
            }
            guard
                let row = try await connection.first(
                    """
                    INSERT INTO topics (app_id, scope_kind, scope_id, name, creator_kind, creator_id, created_at, acl_list)
                    VALUES (\(topic.appID), \(kind), \(id), \(topic.name.rawValue), \(creatorKind), \(creatorID),
                        \(topic.createdAt), \(StoredForm.aclList(entries)))
                    RETURNING topic_id
                    """)
            else { return .inserted }
            let topicID: Int64 = try row("topic_id")
            try await Self.notify(connection, .topic(topic.appID, topic.address))
            for entry in entries {
                try await connection.run(
                    """
                    INSERT INTO acl_entries (topic_id, action, subject, is_default)
                    VALUES (\(topicID), \(entry.action.rawValue), \(entry.subject.description), \(entry.isDefault))
                    ON CONFLICT DO NOTHING
                    """)
            }
            return .inserted
        }
    }

    public func topic(appID: AppID, address: TopicAddress) async throws -> (Topic, [ACLEntry])? {
        try await read { connection in
            let rows = try await connection.rows(TopicWithEntries(appID: appID, address: address))
            guard let first = rows.first, let topic = try Self.topic(first, appID: appID) else { return nil }
            return (topic, try rows.compactMap(Self.entry).sorted())
        }
    }

    public func deleteTopic(appID: AppID, address: TopicAddress) async throws -> Bool {
        let (kind, id) = StoredForm.columns(address.scope)
        return try await write { connection in
            try await Self.notify(connection, .topic(appID, address))
            return try await connection.count(
                """
                DELETE FROM topics
                WHERE app_id = \(appID) AND scope_kind = \(kind) AND scope_id = \(id) AND name = \(address.name.rawValue)
                RETURNING 1
                """) > 0
        }
    }

    public func topics(appID: AppID, scope: TopicScope, after: TopicName?, limit: Int) async throws -> [Topic] {
        let (kind, id) = StoredForm.columns(scope)
        return try await read { connection in
            try await connection.rows(
                """
                SELECT * FROM topics
                WHERE app_id = \(appID) AND scope_kind = \(kind) AND scope_id = \(id) AND name > \(after?.rawValue ?? "")
                ORDER BY name LIMIT \(limit)
                """
            ).compactMap { try Self.topic($0, appID: appID) }
        }
    }

    /// A single change planned on `known` entries commits in one statement when they are still
    /// the topic's (`RecordedACLStep`); otherwise, and for several changes, in a transaction that
    /// locks the topic and plans on the entries read under the lock.
    public func applyACLChanges(
        appID: AppID, address: TopicAddress, changes: [ACLChange], actor: Principal, at time: UnixMillis,
        known: [ACLEntry]?
    ) async throws -> [ACLEntry] {
        let prune = auditPruning.isDue(at: time)
        if !prune, let known, let plan = try? ACLChangePlan(entries: known, changes: changes), plan.steps.count == 1,
            try await applyAtOnce(plan, appID: appID, address: address, known: known, actor: actor, at: time)
        {
            return plan.entries
        }
        return try await write { connection in
            guard
                let locked = try await connection.first(
                    LockedTopic(topic: TopicByAddress(appID: appID, address: address)))
            else { throw KiiError.topicNotFound(appID: appID, address) }
            let topicID: Int64 = try locked("topic_id")
            var list: String? = try locked("acl_list")
            let current = try await connection.rows(TopicEntries(topicID: topicID)).compactMap(Self.entry)
            let plan = try ACLChangePlan(entries: current, changes: changes)
            if !plan.steps.isEmpty { TransactionChanges.current?.note(.topic(appID, address)) }
            for step in plan.steps {
                let recorded = Self.recorded(step, appID: appID, address: address, actor: actor, at: time, list: list)
                let rows =
                    step.change.kind == .grant
                    ? try await connection.rows(ACLEntryGrant(recorded: recorded))
                    : try await connection.rows(ACLEntryRevocation(recorded: recorded))
                // Under the topic's lock the list is the one read: anything else rolls back.
                guard try RecordedACLStep.outcome(rows) == (true, true) else {
                    throw StoreInconsistency("the ACL of \(address) changed under its lock")
                }
                list = StoredForm.aclList(step.entriesAfter)
            }
            if prune {
                try await connection.run("DELETE FROM acl_audit WHERE at < \(time - AuditRetention.span)")
            }
            return plan.entries
        }
    }

    /// Applies `plan`'s one step as one statement if the topic's entries are still `known`:
    /// false when they are not (or not known to the database), and nothing was changed.
    private func applyAtOnce(
        _ plan: ACLChangePlan, appID: AppID, address: TopicAddress, known: [ACLEntry], actor: Principal,
        at time: UnixMillis
    ) async throws -> Bool {
        guard let step = plan.steps.first else { return false }
        let origin = ownNotices.expect()
        let recorded = Self.recorded(
            step, appID: appID, address: address, actor: actor, at: time, list: StoredForm.aclList(known),
            origin: origin)
        let topic = TopicChange.topic(appID, address)
        let outcome: (claimed: Bool, changed: Bool)
        do {
            let rows =
                step.change.kind == .grant
                ? try await writeTelling(
                    ACLEntryGrant(recorded: recorded), topic: topic, echo: origin, changed: Self.changedACL)
                : try await writeTelling(
                    ACLEntryRevocation(recorded: recorded), topic: topic, echo: origin, changed: Self.changedACL)
            outcome = try RecordedACLStep.outcome(rows)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            // The entry exists though the list said not (entries the list does not know of):
            // nothing committed; the transaction finds out.
            return false
        }
        if outcome.claimed && !outcome.changed {
            // The list said the entry was there and it was not: the list is wrong; unknown now.
            let (kind, id) = StoredForm.columns(address.scope)
            try await write(
                """
                UPDATE topics SET acl_list = NULL
                WHERE app_id = \(appID) AND scope_kind = \(kind) AND scope_id = \(id) AND name = \(address.name.rawValue)
                """)
        }
        return outcome.claimed && outcome.changed
    }

    private static func recorded(
        _ step: ACLChangePlan.Step, appID: AppID, address: TopicAddress, actor: Principal, at time: UnixMillis,
        list: String?, origin: String? = nil
    ) -> RecordedACLStep {
        RecordedACLStep(
            appID: appID, address: address, actor: actor, step: step, at: time,
            notice: ChangeNotice(channel: changeChannel, change: .topic(appID, address), origin: origin),
            expectedList: list)
    }

    @Sendable private static func changedACL(_ rows: [PostgresColumns]) throws -> Bool {
        try RecordedACLStep.outcome(rows).changed
    }

    public func aclAudit(appID: AppID, address: TopicAddress, after: Int64?, limit: Int) async throws
        -> [(key: Int64, record: ACLAuditRecord)]
    {
        let (kind, id) = StoredForm.columns(address.scope)
        return try await read { connection in
            try await connection.rows(
                """
                SELECT * FROM acl_audit
                WHERE app_id = \(appID) AND scope_kind = \(kind) AND scope_id = \(id) AND name = \(address.name.rawValue)
                    AND audit_id > \(after ?? 0)
                ORDER BY audit_id LIMIT \(limit)
                """
            ).compactMap { row -> (key: Int64, record: ACLAuditRecord)? in
                guard let action = ACLAction(rawValue: try row("action")),
                    let subject = ACLSubject(parsing: try row("subject", as: String.self)),
                    let change = ACLChange.Kind(rawValue: try row("change"))
                else { return nil }
                return (
                    try row("audit_id", as: Int64.self),
                    ACLAuditRecord(
                        at: try row("at"), actor: StoredForm.actor(try row("actor")),
                        change: ACLChange(change, ACLEntry(action, subject)),
                        before: StoredForm.entryList(try row("before", as: String.self)),
                        after: StoredForm.entryList(try row("after", as: String.self)))
                )
            }
        }
    }

    public func subscribe(
        appID: AppID, address: TopicAddress, subscriber: Subscriber, at time: UnixMillis, limit: Int?
    ) async throws -> SubscriptionOutcome {
        let rows = try await writeTelling(
            SubscriptionAddition(
                appID: appID, address: address, subscriber: subscriber, at: time,
                notice: ChangeNotice(channel: Self.changeChannel, change: .listeners), limit: limit),
            changed: { try Self.changedSubscription($0) == true })
        guard let changed = try Self.changedSubscription(rows) else {
            throw KiiError.topicNotFound(appID: appID, address)
        }
        if changed { return .added }
        let held = Int(try rows.first.map { try $0("held", as: Int64.self) } ?? 0)
        if let limit, held >= limit { return .limited(held: held) }
        return .existing
    }

    public func unsubscribe(appID: AppID, address: TopicAddress, subscriber: Subscriber) async throws -> Bool {
        let rows = try await writeTelling(
            SubscriptionRemoval(
                appID: appID, address: address, subscriber: subscriber,
                notice: ChangeNotice(channel: Self.changeChannel, change: .listeners)),
            changed: { try Self.changedSubscription($0) == true })
        guard let changed = try Self.changedSubscription(rows) else {
            throw KiiError.topicNotFound(appID: appID, address)
        }
        return changed
    }

    /// Whether a subscription's statement changed it; nil when it found no topic.
    private static func changedSubscription(_ rows: [PostgresColumns]) throws -> Bool? {
        guard let row = rows.first, try row("topics", as: Int64.self) > 0 else { return nil }
        return try row("changed", as: Int64.self) > 0
    }

    public func topicCount(appID: AppID, creator: Principal) async throws -> Int {
        try await read { connection in try await Self.topicCount(connection, appID: appID, creator: creator) }
    }

    private static func topicCount(_ connection: PostgresConnection, appID: AppID, creator: Principal) async throws
        -> Int
    {
        let (kind, id) = StoredForm.columns(creator)
        return try await connection.first(
            """
            SELECT COUNT(*) AS n FROM topics
            WHERE app_id = \(appID) AND creator_kind = \(kind) AND creator_id = \(id)
            """
        ).map { Int(try $0("n", as: Int64.self)) } ?? 0
    }

    public func isSubscribed(appID: AppID, address: TopicAddress, subscriber: Subscriber) async throws -> Bool {
        let (kind, id) = StoredForm.columns(subscriber)
        return try await read { connection in
            let topicID = try await Self.existingTopicID(connection, appID, address)
            return try await connection.first(
                """
                SELECT 1 FROM subscriptions
                WHERE topic_id = \(topicID) AND subscriber_kind = \(kind) AND subscriber_id = \(id)
                """) != nil
        }
    }

    public func accessContexts(appID: AppID, users: [UserID]) async throws -> [UserID: AccessContext] {
        try await read { connection in try await Self.accessContexts(connection, appID: appID, users: users) }
    }

    public func subscriberContexts(appID: AppID, address: TopicAddress) async throws -> [Subscriber: AccessContext] {
        try await read { connection in
            var result: [Subscriber: AccessContext] = [:]
            var users: [UserID] = []
            var memberships: [(UserID, GroupID)] = []
            var ownerships: [(owner: Owner, thing: ThingID)] = []
            for row in try await connection.rows(SubscriberFacts(topic: TopicByAddress(appID: appID, address: address)))
            {
                let kind: String = try row("kind")
                let id: String = try row("id")
                switch try row("fact", as: String.self) {
                case "subscriber" where kind == "user": users.append(UserID(id))
                case "subscriber": result[.thing(ThingID(id))] = AccessContext(principal: .thing(ThingID(id)))
                case "member": memberships.append((UserID(try row("detail")), GroupID(id)))
                default:
                    let thing = ThingID(try row("detail"))
                    ownerships.append((kind == "user" ? .user(UserID(id)) : .group(GroupID(id)), thing))
                }
            }
            for (user, context) in Self.accessContexts(users: users, memberships: memberships, ownerships: ownerships) {
                result[.user(user)] = context
            }
            return result
        }
    }

    public func subscribers(appID: AppID, address: TopicAddress) async throws -> [Subscriber] {
        try await read { connection in
            guard let row = try await Self.topicRow(connection, appID, address) else { return [] }
            let topicID: Int64 = try row("topic_id")
            return try await connection.rows(TopicSubscriptions(topicID: topicID)).map { subscription -> Subscriber in
                let id: String = try subscription("subscriber_id")
                return try subscription("subscriber_kind", as: String.self) == "user"
                    ? .user(UserID(id)) : .thing(ThingID(id))
            }.sorted()
        }
    }

    /// Each user's groups and owned things (directly or through a group), in two queries.
    static func accessContexts(_ connection: PostgresConnection, appID: AppID, users: [UserID]) async throws
        -> [UserID: AccessContext]
    {
        guard !users.isEmpty else { return accessContexts(users: [], memberships: [], ownerships: []) }
        var memberships: [(UserID, GroupID)] = []
        for row in try await connection.rows(GroupsOfUsers(appID: appID, users: users)) {
            memberships.append((try row("user_id"), try row("group_id")))
        }
        var ownerships: [(owner: Owner, thing: ThingID)] = []
        for row in try await connection.rows(
            ThingsOwnedBy(appID: appID, users: users, groups: Array(Set(memberships.map(\.1)))))
        {
            let owner: String = try row("owner_id")
            ownerships.append(
                (
                    try row("owner_kind", as: String.self) == "user" ? .user(UserID(owner)) : .group(GroupID(owner)),
                    try row("thing_id")
                ))
        }
        return accessContexts(users: users, memberships: memberships, ownerships: ownerships)
    }

    /// Each of `users`' groups and owned things (directly, or through a group it is a member of).
    static func accessContexts(
        users: [UserID], memberships: [(UserID, GroupID)], ownerships: [(owner: Owner, thing: ThingID)]
    ) -> [UserID: AccessContext] {
        var contexts: [UserID: AccessContext] = [:]
        for user in users { contexts[user] = AccessContext(principal: .user(user)) }
        var groupMembers: [GroupID: [UserID]] = [:]
        for (user, group) in memberships {
            contexts[user]?.groups.insert(group)
            groupMembers[group, default: []].append(user)
        }
        for (owner, thing) in ownerships {
            let owners: [UserID] =
                switch owner {
                case .user(let user): [user]
                case .group(let group): groupMembers[group] ?? []
                }
            for user in owners { contexts[user]?.ownedThings.insert(thing) }
        }
        return contexts
    }

    /// What a user, group or thing leaves among topics when it is deleted: its scope's topics
    /// (with their entries and subscriptions), every entry that names it and, for users and
    /// things, their subscriptions; the other gateways drop what they keep of the app's access.
    static func deleteTopics(of holder: ACLSubject, _ connection: PostgresConnection, appID: AppID) async throws {
        try await notify(connection, .principalDeleted(appID))
        if let scope = StoredForm.scope(of: holder) {
            let (kind, id) = StoredForm.columns(scope)
            try await connection.run(
                "DELETE FROM topics WHERE app_id = \(appID) AND scope_kind = \(kind) AND scope_id = \(id)")
        }
        // The topics whose entries it removes no longer have the list their last change left.
        try await connection.run(
            """
            WITH removed AS (
                DELETE FROM acl_entries
                WHERE subject = \(holder.description) AND topic_id IN (SELECT topic_id FROM topics WHERE app_id = \(appID))
                RETURNING topic_id
            )
            UPDATE topics SET acl_list = NULL WHERE topic_id IN (SELECT topic_id FROM removed)
            """)
        if let subscriber = StoredForm.subscriber(of: holder) {
            let (kind, id) = StoredForm.columns(subscriber)
            try await connection.run(
                """
                DELETE FROM subscriptions WHERE subscriber_kind = \(kind) AND subscriber_id = \(id)
                    AND topic_id IN (SELECT topic_id FROM topics WHERE app_id = \(appID))
                """)
        }
    }

    static func topicRow(
        _ connection: PostgresConnection, _ appID: AppID, _ address: TopicAddress
    ) async throws -> PostgresColumns? {
        try await connection.first(TopicByAddress(appID: appID, address: address))
    }

    /// The topic's row ID; `TOPIC_NOT_FOUND` when there is no such topic.
    static func existingTopicID(_ connection: PostgresConnection, _ appID: AppID, _ address: TopicAddress)
        async throws -> Int64
    {
        guard let row = try await topicRow(connection, appID, address) else {
            throw KiiError.topicNotFound(appID: appID, address)
        }
        return try row("topic_id")
    }

    /// The topic a `topics` row holds; nil for a scope or name it cannot hold.
    static func topic(_ row: PostgresColumns, appID: AppID) throws -> Topic? {
        guard let scope = StoredForm.scope(kind: try row("scope_kind"), id: try row("scope_id")),
            let name = TopicName(rawValue: try row("name"))
        else { return nil }
        return Topic(
            appID: appID, address: TopicAddress(scope: scope, name: name),
            creator: StoredForm.principal(kind: try row("creator_kind"), id: try row("creator_id")) ?? .anonymous,
            createdAt: try row("created_at"))
    }

    /// The ACL entry a row holds (`acl_entries`' columns; none in a topic's row without entries).
    static func entry(_ row: PostgresColumns) throws -> ACLEntry? {
        guard let action = try row("action", as: String?.self).flatMap(ACLAction.init(rawValue:)),
            let subject = try row("subject", as: String?.self).flatMap(ACLSubject.init(parsing:)),
            let isDefault = try row("is_default", as: Bool?.self)
        else { return nil }
        return ACLEntry(action, subject, isDefault: isDefault)
    }
}
