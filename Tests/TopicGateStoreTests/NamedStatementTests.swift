import PostgresNIO
import Testing
import TopicGateCore

@testable import TopicGateStore

/// The hot statements of the PostgreSQL store go as named prepared statements: each connection
/// prepares one once, PostgreSQL stops planning it for each execution, and a column added to its
/// table (by a newer gateway's migration) leaves it working.
@Suite("Store: named statements (PostgreSQL)")
struct NamedStatementTests {
    let appID = AppID("app1")
    let news = TopicAddress(scope: .app, name: TopicName(rawValue: "news")!)

    /// A PostgreSQL store with one app, its user ann, her thing lamp and the app topic news.
    func newStore() async throws -> PostgresStore {
        let store = try #require(try await StoreEngine.postgres.newStore(appID: appID) as? PostgresStore)
        try await store.insertUser(
            User(id: UserID("ann"), appID: appID, passwordHash: "h", createdAt: 1, modifiedAt: 1))
        try await store.insertThing(
            Thing(
                id: ThingID("lamp"), appID: appID, vendorThingID: "v-lamp", passwordHash: "h", fields: ThingFields(),
                createdAt: 1, modifiedAt: 1))
        try await store.insertTopic(
            Topic(appID: appID, address: news, creator: .user(UserID("ann")), createdAt: 1),
            entries: [ACLEntry(.subscribe, .anyAuthenticated, isDefault: true)])
        return store
    }

    @Test(
        "The settlement's statements commit without waiting for the log (synchronous_commit off in their transaction), and the connection's next transactions wait again"
    )
    func settlementsUnsynced() async throws {
        let store = try await newStore()
        defer { store.close() }
        let settings = try await store.read { connection in
            func setting() async throws -> String {
                let row = try #require(try await connection.first("SELECT current_setting('synchronous_commit') AS s"))
                return try row("s", as: String.self)
            }
            // The tests' server does not wait for its log at all: this connection does, as by default.
            try await connection.run("SET synchronous_commit = on")
            var seen = [try await setting()]
            for commands in [[:], [appID: [CommandID("c1")]]] as [[AppID: [CommandID]]] {
                func statement() async throws {
                    try await connection.run(
                        OutboxSettlement(ids: [PushMessageID("m1")], publishedCommands: commands, at: 5))
                }
                try await connection.run("BEGIN")
                try await statement()
                seen.append(try await setting())  // in its transaction
                try await connection.run("COMMIT")
                seen.append(try await setting())  // after it
                try await statement()  // alone, as the store runs it
                seen.append(try await setting())
            }
            return seen
        }
        #expect(settings == ["on", "off", "on", "on", "off", "on", "on"])
    }

    @Test("A topic read ten times on one connection is prepared once, and planned generically after its first runs")
    func preparedOnce() async throws {
        let store = try await newStore()
        defer { store.close() }
        let (statements, generic, custom) = try await store.read { connection in
            for _ in 0..<10 {
                #expect(try await connection.first(TopicByAddress(appID: appID, address: news)) != nil)
            }
            let row = try #require(
                try await connection.query(
                    "SELECT count(*) OVER (), generic_plans, custom_plans FROM pg_prepared_statements WHERE name = \(TopicByAddress.name)",
                    logger: connection.logger
                ).collect().first)
            return try row.decode((Int, Int64, Int64).self)
        }
        #expect(statements == 1)
        // PostgreSQL plans the first five executions for their values, then keeps the generic
        // plan when it costs no more (a lookup by a unique index).
        #expect(custom == 5)
        #expect(generic == 5)
    }

    @Test(
        "A topic's acl_list that does not match its entries (edited by hand) never makes a change apply wrongly: a grant of an entry it omits answers ACL_ALREADY_EXISTS, a revoke of one it invents ACL_NOT_FOUND, and the list is unknown after"
    )
    func wrongACLList() async throws {
        let store = try await newStore()
        defer { store.close() }
        let existing = ACLEntry(.subscribe, .anyAuthenticated, isDefault: true)
        let invented = ACLEntry(.send, .user(UserID("ann")))
        func setList(_ entries: [ACLEntry]) async throws {
            let list = StoredForm.aclList(entries)
            try await store.write { connection in try await connection.run("UPDATE topics SET acl_list = \(list)") }
        }
        func list() async throws -> String? {
            try await store.read { connection in
                try await connection.first("SELECT acl_list FROM topics").map { try $0("acl_list", as: String?.self) }
                    ?? nil
            }
        }
        // The list omits the existing entry, and so do the entries the change is planned on.
        try await setList([])
        let grant = await #expect(throws: KiiError.self) {
            _ = try await store.applyACLChanges(
                appID: appID, address: news, changes: [ACLChange(.grant, ACLEntry(.subscribe, .anyAuthenticated))],
                actor: .admin, at: 2, known: [])
        }
        #expect(grant?.code == .aclAlreadyExists)
        // The list invents an entry, and so do the entries the change is planned on.
        try await setList([existing, invented])
        let revoke = await #expect(throws: KiiError.self) {
            _ = try await store.applyACLChanges(
                appID: appID, address: news, changes: [ACLChange(.revoke, invented)], actor: .admin, at: 3,
                known: [existing, invented])
        }
        #expect(revoke?.code == .aclNotFound)
        #expect(try await list() == nil)
        #expect(try await store.topic(appID: appID, address: news)?.1 == [existing])
        #expect(try await store.aclAudit(appID: appID, address: news, after: nil, limit: 10).isEmpty)
    }

    @Test(
        "After a column is added to topics, users, things and tokens, every named read on a connection that prepared them still answers"
    )
    func columnAdded() async throws {
        let store = try await newStore()
        defer { store.close() }
        let ann = UserID("ann")
        let lamp = ThingID("lamp")
        try await store.insertToken(
            AccessToken(hash: "t", appID: appID, principal: .user(ann), expiresAt: nil, createdAt: 1))
        try await store.read { connection in
            func readAll() async throws {
                #expect(try await connection.first(TopicByAddress(appID: appID, address: news)) != nil)
                #expect(try await connection.first(UserByID(appID: appID, id: ann)).map(PostgresStore.user)?.id == ann)
                #expect(
                    try await connection.first(ThingByID(appID: appID, id: lamp)).map(PostgresStore.thing)?.id == lamp)
                #expect(try await connection.first(TokenHolderByHash(hash: "t")) != nil)
            }
            try await readAll()
            for table in ["topics", "users", "things", "tokens"] {
                try await connection.query(
                    PostgresQuery(unsafeSQL: "ALTER TABLE \(table) ADD COLUMN added_later TEXT"),
                    logger: connection.logger)
            }
            try await readAll()
        }
    }

    @Test(
        "Subscriptions and ACL entries written again and again on one connection answer as the first time, each statement prepared once, also after a column is added"
    )
    func writesPreparedOnce() async throws {
        let store = try await newStore()
        defer { store.close() }
        let names = [SubscriptionAddition.name, SubscriptionRemoval.name, ACLEntryGrant.name, ACLEntryRevocation.name]
        let appID = self.appID
        let news = self.news
        let prepared = try await store.write { connection in
            try await Self.writeAroundAddedColumns(connection, appID: appID, topic: news, names: names)
        }
        #expect(prepared.sorted() == names.sorted())
    }

    /// Five rounds of writes, a column added to each table written, five more; the names of the
    /// write statements prepared on the connection.
    static func writeAroundAddedColumns(
        _ connection: PostgresConnection, appID: AppID, topic: TopicAddress, names: [String]
    )
        async throws -> [String]
    {
        guard let row = try await connection.first(TopicByAddress(appID: appID, address: topic)) else { return [] }
        let topicID: Int64 = try row("topic_id")
        for _ in 0..<5 { try await writeRound(connection, appID: appID, topic: topic, topicID: topicID) }
        for table in ["subscriptions", "acl_entries"] {
            try await connection.query(
                PostgresQuery(unsafeSQL: "ALTER TABLE \(table) ADD COLUMN added_later TEXT"), logger: connection.logger)
        }
        for _ in 0..<5 { try await writeRound(connection, appID: appID, topic: topic, topicID: topicID) }
        let rows = try await connection.query(
            "SELECT name FROM pg_prepared_statements WHERE name = ANY(\(names))", logger: connection.logger
        ).collect()
        return try rows.map { try $0.decode(String.self) }
    }

    /// Subscribes bob twice and ends his subscription twice, grants him an entry and revokes it.
    static func writeRound(_ connection: PostgresConnection, appID: AppID, topic: TopicAddress, topicID: Int64)
        async throws
    {
        let bob = Subscriber.user(UserID("bob"))
        let entry = ACLEntry(.send, .user(UserID("bob")))
        let notice = ChangeNotice(channel: PostgresStore.changeChannel, change: .listeners)
        func changed(_ rows: [TopicGateStore.PostgresColumns]) throws -> Int64 { try rows.first?("changed") ?? -1 }
        // Changed only when the subscription is new, and only when there was one to end.
        let added = try await connection.rows(
            SubscriptionAddition(appID: appID, address: topic, subscriber: bob, at: 2, notice: notice))
        let again = try await connection.rows(
            SubscriptionAddition(appID: appID, address: topic, subscriber: bob, at: 3, notice: notice))
        let removed = try await connection.rows(
            SubscriptionRemoval(appID: appID, address: topic, subscriber: bob, notice: notice))
        let removedAgain = try await connection.rows(
            SubscriptionRemoval(appID: appID, address: topic, subscriber: bob, notice: notice))
        #expect(try [added, again, removed, removedAgain].map(changed) == [1, 0, 1, 0])
        func entries() async throws -> [ACLEntry] {
            try await connection.rows(TopicEntries(topicID: topicID)).compactMap(PostgresStore.entry)
        }
        /// `change` planned on the entries read under the topic's lock, expecting `list` (the
        /// topic's own when nil).
        func apply(_ change: ACLChange, expecting list: String? = nil) async throws -> (claimed: Bool, changed: Bool) {
            let locked = try #require(
                try await connection.first(LockedTopic(topic: TopicByAddress(appID: appID, address: topic))))
            let step = try #require(try ACLChangePlan(entries: try await entries(), changes: [change]).steps.first)
            let recorded = RecordedACLStep(
                appID: appID, address: topic, actor: .user(UserID("ann")), step: step, at: 4,
                notice: ChangeNotice(channel: PostgresStore.changeChannel, change: .topic(appID, topic)),
                expectedList: try list ?? locked("acl_list"))
            return try RecordedACLStep.outcome(
                change.kind == .grant
                    ? try await connection.rows(ACLEntryGrant(recorded: recorded))
                    : try await connection.rows(ACLEntryRevocation(recorded: recorded)))
        }
        // A step planned on other entries than the topic's changes nothing.
        let stale = try await apply(ACLChange(.grant, entry), expecting: "SEND_MESSAGE_TO_TOPIC/UserID:bob")
        #expect(stale == (false, false))
        #expect(!(try await entries()).contains(entry))
        let grant = try await apply(ACLChange(.grant, entry))
        let granted = try await entries()
        let revoke = try await apply(ACLChange(.revoke, entry))
        let revoked = try await entries()
        #expect(grant == (true, true) && revoke == (true, true))
        #expect(granted.contains(entry))
        #expect(!revoked.contains(entry))
    }
}
