import Logging
import NIOCore
internal import NIOPosix
internal import PostgresNIO
import Synchronization
import TopicGateCore

/// The store for several gateways: one PostgreSQL database, reached through a pool of
/// connections. Every write is one transaction, committed (and so on the server's disk, with
/// PostgreSQL's default `synchronous_commit`) before it returns.
public final class PostgresStore: Sendable {
    let client: PostgresClient
    let location: PostgresLocation
    /// Where the change feed listens: `location` unless a direct connection is given (LISTEN
    /// needs a session of its own, which a pooler in transaction mode does not keep).
    let feedLocation: PostgresLocation
    let logger: Logger
    /// How long a request waits for a connection of the pool before it is told the database is
    /// unavailable (a database that is down would otherwise keep it waiting).
    let leaseTimeout: Duration
    /// Move on for this gateway's own commits (`TransactionChanges`) and, through the
    /// `CacheInvalidationService`, for the other gateways'; untrusted until the feed is heard.
    let generations = StoreGenerations(trusted: false)
    /// When an ACL change also removes the audit records past their retention.
    let auditPruning = AuditPruning()
    /// This gateway's own ACL changes, whose echo on the change feed is not applied.
    let ownNotices = OwnNotices()
    private let running: Task<Void, Never>

    /// Connects to the database `location` names and brings its schema up to date (several
    /// gateways starting at once migrate one after another).
    /// `feed`: where the change feed listens, when not at `location`; `leaseTimeout`: how long
    /// a request waits for a connection of the pool.
    public static func open(
        _ location: PostgresLocation, feed: PostgresLocation? = nil, leaseTimeout: Duration = .seconds(5),
        logger: Logger = Logger(label: "topicgate.postgres")
    ) async throws -> PostgresStore {
        let store = PostgresStore(
            client: PostgresClient(configuration: location.configuration, backgroundLogger: logger), location: location,
            feedLocation: feed ?? location, leaseTimeout: leaseTimeout, logger: logger)
        do {
            try await PostgresSchema.migrate(store)
        } catch {
            store.close()
            throw error
        }
        return store
    }

    private init(
        client: PostgresClient, location: PostgresLocation, feedLocation: PostgresLocation, leaseTimeout: Duration,
        logger: Logger
    ) {
        self.client = client
        self.leaseTimeout = leaseTimeout
        self.location = location
        self.feedLocation = feedLocation
        self.logger = logger
        // Started before the first lease (an immediate task runs up to its first suspension).
        running = Task.immediate { await client.run() }
    }

    /// Closes the pool's connections.
    public func close() {
        running.cancel()
    }

    deinit { running.cancel() }

    /// Runs `body` on one connection of the pool (each statement commits on its own).
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let changes = TransactionChanges()
        // Each statement commits on its own.
        changes.committing = true
        defer { changes.advance(generations) }
        do {
            return try await TransactionChanges.$current.withValue(changes) {
                try await withConnection { connection in
                    let value = try await body(connection)
                    // A watched change that committed on its own (none of the store's reads makes
                    // one: this keeps a future one from going unseen by the other gateways).
                    for change in changes.feedChanges { try await Self.notify(connection, change) }
                    return value
                }
            }
        } catch {
            throw Self.unavailable(error) ?? error
        }
    }

    /// `body` on a connection of the pool, or `StoreUnavailable` when none was handed out within
    /// `leaseTimeout`. Once `body` runs it is never cut short (a write is committed or not, and
    /// its caller learns which).
    ///
    /// The deadline is an event-loop timer, not a sleeping task: a cancelled `Task.sleep` keeps
    /// its task's memory (about 1.5 KiB) until the time it slept for has passed, and one per
    /// statement held megabytes at a few thousand statements a second.
    private func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T)
        async throws -> T
    {
        let lease = Lease()
        let client = self.client
        let leasing = Task {
            try await client.withConnection { connection in
                // Handed out after the deadline: given back at once.
                guard lease.begin() else { throw CancellationError() }
                return try await body(connection)
            }
        }
        let deadline = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: TimeAmount(leaseTimeout)) {
            if lease.expire() { leasing.cancel() }
        }
        defer { deadline.cancel() }
        do {
            return try await withTaskCancellationHandler {
                try await leasing.value
            } onCancel: {
                leasing.cancel()
            }
        } catch {
            if lease.expired { throw StoreUnavailable("PostgreSQL: no connection within \(leaseTimeout)") }
            throw error
        }
    }

    /// Whether a lease of the pool began before its deadline passed, or the deadline first.
    private final class Lease: Sendable {
        private enum State { case waiting, begun, expired }
        private let state = Mutex(State.waiting)

        /// The connection was handed out: false when the deadline passed first.
        func begin() -> Bool {
            state.withLock { state in
                guard state == .waiting else { return false }
                state = .begun
                return true
            }
        }

        /// The deadline passed: true when no connection was handed out before.
        func expire() -> Bool {
            state.withLock { state in
                guard state == .waiting else { return false }
                state = .expired
                return true
            }
        }

        var expired: Bool { state.withLock { $0 == .expired } }
    }

    /// `StoreUnavailable` for an error that says the database cannot be reached now (the
    /// connection failed or closed, the server shuts down or has no connection left, the pool
    /// gave up connecting); nil for the rest (a Kii error, a bug).
    static func unavailable(_ error: any Error) -> StoreUnavailable? {
        switch error {
        case is KiiError, is CancellationError, is PostgresDecodingError, is StoreUnavailable:
            return nil
        case let error as PSQLError:
            let connection: [PSQLError.Code] = [
                .clientClosedConnection, .serverClosedConnection, .connectionError, .uncleanShutdown, .poolClosed,
                .sslUnsupported, .failedToAddSSLHandler,
            ]
            // SQLSTATE classes: 08 connection exception, 53 insufficient resources, 57 operator
            // intervention (shutdown), 58 system error.
            let state = error.serverInfo?[.sqlState] ?? ""
            guard connection.contains(error.code) || ["08", "53", "57", "58"].contains(String(state.prefix(2))) else {
                return nil
            }
            return StoreUnavailable("PostgreSQL: \(error.code)\(state.isEmpty ? "" : " (\(state))")")
        default:
            // The pool's own errors (it could not connect).
            return StoreUnavailable("PostgreSQL: \(error)")
        }
    }

    /// Runs `body` in one transaction, committed when it returns and rolled back when it throws
    /// (its error is rethrown as it is). A write that breaks a unique index throws the Kii
    /// conflict error `conflict` names for the index, when it names one.
    func write<T: Sendable>(
        conflict: (String) -> KiiError? = { _ in nil },
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let logger = self.logger
        let changes = TransactionChanges()
        // Moved on once the commit was asked for, whether it went through or not (an unknown
        // outcome counts as a change); a transaction rolled back changed nothing.
        defer {
            if changes.committing { changes.advance(generations) }
        }
        do {
            return try await TransactionChanges.$current.withValue(changes) {
                try await withConnection { connection in
                    try await connection.query("BEGIN", logger: logger)
                    do {
                        let value = try await body(connection)
                        // Told to every gateway when (and only if) the transaction commits.
                        for change in changes.feedChanges { try await Self.notify(connection, change) }
                        changes.committing = true
                        try await connection.query("COMMIT", logger: logger)
                        return value
                    } catch {
                        _ = try? await connection.query("ROLLBACK", logger: logger)
                        throw error
                    }
                }
            }
        } catch {
            throw Self.mapped(error, conflict: conflict)
        }
    }

    /// Runs `statement` as a transaction of its own, and returns how many rows it returned
    /// (`RETURNING`). PostgreSQL commits a lone statement by itself: one round trip, where
    /// `write` takes three (BEGIN, the statement, COMMIT). Several changes in one statement
    /// (`WITH … AS (INSERT …) INSERT …`) commit together. A statement that changes what a
    /// generation watches goes through `write`, so that its notification commits with it.
    @discardableResult
    func write(_ statement: PostgresQuery, conflict: (String) -> KiiError? = { _ in nil }) async throws -> Int {
        try await write(alone: statement.sql, conflict: conflict) { connection in
            try await connection.count(statement)
        }
    }

    /// Runs the named `statement` as a transaction of its own (see `write(_:conflict:)`).
    @discardableResult
    func write<Statement: NamedStatement>(_ statement: Statement, conflict: (String) -> KiiError? = { _ in nil })
        async throws -> Int
    {
        try await write(alone: Statement.sql, conflict: conflict) { connection in
            try await connection.rows(statement).count
        }
    }

    /// Runs `statement`, a change that tells the change feed itself (a `pg_notify` inside it,
    /// which PostgreSQL delivers when the statement commits), as a transaction of its own: one
    /// round trip, where `write` takes four (BEGIN, the statement, the notice, COMMIT). This
    /// gateway's generations move as `write` moves them, for what the statement's text changes,
    /// when `changed` says its rows changed something (or cannot read them), or when its outcome
    /// is unknown (the connection failed); not when it changed nothing or PostgreSQL refused it.
    /// `topic`: the topic change the topic cache is told of in the same cases. `echo`: the
    /// origin its notice is marked with (`OwnNotices.expect()`), forgotten unless it changed
    /// something. Every row it returns.
    func writeTelling<Statement: NamedStatement>(
        _ statement: Statement, topic: TopicChange? = nil, echo: String? = nil,
        changed: ([PostgresColumns]) throws -> Bool
    ) async throws -> [PostgresColumns] {
        let changes = TransactionChanges()
        if let topic { changes.note(topic) }
        do {
            let rows = try await withConnection { connection in try await connection.rows(statement) }
            // Committed: rows it cannot read count as a change.
            if (try? changed(rows)) ?? true {
                changes.note(Statement.sql, returned: rows.count)
                changes.advance(generations)
            } else if let echo {
                ownNotices.forget(echo)
            }
            return rows
        } catch {
            // Refused, or unknown: its echo, if one comes, is applied (forgotten before the
            // generations move, so that no read after them keeps what it might change).
            if let echo { ownNotices.forget(echo) }
            if Self.unavailable(error) != nil {
                changes.note(Statement.sql, returned: 1)
                changes.advance(generations)
            }
            throw Self.mapped(error, conflict: { _ in nil })
        }
    }

    /// Runs `statement`, whose text is `sql`, alone; in `write`'s transaction when it changes
    /// what a generation watches.
    private func write(
        alone sql: String, conflict: (String) -> KiiError?,
        _ statement: @escaping @Sendable (PostgresConnection) async throws -> Int
    ) async throws -> Int {
        let watched = StatementChanges.of(sql).contains {
            WatchedChanges.access($0) || WatchedChanges.installations($0)
        }
        if watched { return try await write(conflict: conflict, statement) }
        do {
            return try await withConnection(statement)
        } catch {
            throw Self.mapped(error, conflict: conflict)
        }
    }

    /// A write's error as the caller sees it: the Kii conflict error `conflict` names for a
    /// broken unique index, `StoreUnavailable` when the database cannot be reached.
    private static func mapped(_ error: any Error, conflict: (String) -> KiiError?) -> any Error {
        if let error = error as? PSQLError, error.serverInfo?[.sqlState] == "23505" {
            return conflict(error.serverInfo?[.constraintName] ?? "") ?? error
        }
        return unavailable(error) ?? error
    }

    /// Runs one statement that returns a row per row it changed (`… RETURNING 1`); true when it
    /// changed one.
    func changesRow(_ query: PostgresQuery, conflict: (String) -> KiiError? = { _ in nil }) async throws -> Bool {
        try await write(query, conflict: conflict) > 0
    }
}

extension PostgresStore: Store {
    /// Other gateways change the database too, and their changes reach this one through the
    /// change feed, milliseconds later: what is kept is trusted only while the feed is heard.
    public var caching: StoreCaching {
        .sharedGenerations(generations)
    }
}
