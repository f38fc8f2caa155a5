import GRDB
import TopicGateCore

/// The embedded store: one SQLite file in WAL mode, written with `synchronous = FULL` so that
/// a write that returned is on disk and survives `kill -9` (and a power cut) at any moment.
public final class SQLiteStore: Sendable {
    let pool: DatabasePool
    /// Every write goes through it: concurrent writes share a transaction and its disk sync.
    let writer: GroupCommit
    private let checkpoint: BackgroundCheckpoint
    /// Advances the generations when another process commits on the same file.
    private let foreignCommits: ForeignCommits
    /// Generations: `access` moves on with each committed change that can alter access (see
    /// `WatchedChanges`), `installations` with each of which devices a push goes to.
    public let caching: StoreCaching

    /// Opens (creating and migrating) the database file at `path`.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // Checkpoints are mostly `BackgroundCheckpoint`'s: the writer's own (which alone
            // starts the log over) comes every 64 MiB of log instead of every 4, and the log
            // file is cut back to that size after.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 16384")
            try db.execute(sql: "PRAGMA journal_size_limit = 67108864")
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        // Set on the writer once the pool is open: GRDB turns its writer to `NORMAL` when it sets
        // up WAL mode, after `prepareDatabase`, and a commit in WAL mode at `NORMAL` reaches the
        // disk only at the next checkpoint (a power cut or a crash of the host loses it).
        let synchronous = try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            return try Int.fetchOne(db, sql: "PRAGMA synchronous")
        }
        guard synchronous == 2 else {
            throw DatabaseError(message: "SQLite kept synchronous = \(synchronous ?? -1) on \(path), not FULL")
        }
        try SQLiteSchema.migrator.migrate(pool)
        writer = GroupCommit(pool: pool)
        let writer = self.writer
        checkpoint = try BackgroundCheckpoint(path: path, commits: { writer.commits })
        let generations = StoreGenerations(trusted: true)
        for (generation, watching) in [
            (generations.access, WatchedChanges.access), (generations.relations, WatchedChanges.standing),
            (generations.identity, WatchedChanges.identity),
            (generations.installations, WatchedChanges.installations),
        ] {
            pool.add(
                transactionObserver: GenerationObserver(generation: generation, watching: watching),
                extent: .databaseLifetime)
        }
        caching = .generations(generations)
        foreignCommits = ForeignCommits(pool: pool, generations: generations.all, topics: generations.topics)
    }

    /// Tells the gateway's topic cache, once the write that made `change` returned (committed or
    /// failed: told either way, which costs at most a read).
    func topicsChanged(_ change: TopicChange) {
        caching.generations.topics.announce(change)
    }

    /// Runs `updates` in a write transaction (shared with the writes that wait alongside, each
    /// in its own savepoint: see `GroupCommit`), turning unique-constraint violations into the
    /// Kii conflict error `conflict` names for the failed index. Unless `synced` is false (a
    /// write a crash may undo, see `GroupCommit`), it returns once the write is on disk.
    func write<T: Sendable>(
        synced: Bool = true,
        conflict: @escaping @Sendable (String) -> KiiError? = { _ in nil },
        _ updates: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        do {
            return try await writer.write(synced: synced, updates)
        } catch let error as DatabaseError
            where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
            || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY
        {
            if let mapped = conflict(error.message ?? "") { throw mapped }
            throw error
        }
    }

    /// Runs one statement (prepared once, then cached) in a write transaction; true when it
    /// changed a row.
    func changesRow(
        _ sql: String, _ arguments: StatementArguments,
        conflict: @escaping @Sendable (String) -> KiiError? = { _ in nil }
    ) async throws -> Bool {
        try await write(conflict: conflict) { db in
            try db.cachedStatement(sql: sql).execute(arguments: arguments)
            return db.changesCount > 0
        }
    }

    func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let pool = self.pool
        let readNow = { () throws -> T in try pool.read(value) }
        return try readNow()
    }

    /// `read` for one statement: a single SELECT is atomic on its own, so it runs without the
    /// transaction (BEGIN, savepoint, COMMIT) that `read` opens to make several statements see
    /// one snapshot. Only for closures that run exactly one statement.
    func readOneStatement<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let pool = self.pool
        let readNow = { () throws -> T in try pool.unsafeRead(value) }
        return try readNow()
    }
}

extension SQLiteStore: Store {}
