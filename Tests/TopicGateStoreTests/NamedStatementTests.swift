import PostgresNIO
import Testing
import TopicGateCore

@testable import TopicGateStore

/// The hot reads of the PostgreSQL store go as named prepared statements: each connection
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
}
