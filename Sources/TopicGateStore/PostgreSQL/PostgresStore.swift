import Logging
public import PostgresNIO
import TopicGateCore

/// The store for several gateways: one PostgreSQL database, reached through a pool of
/// connections. Every write is one transaction, committed (and so on the server's disk, with
/// PostgreSQL's default `synchronous_commit`) before it returns.
public final class PostgresStore: Sendable {
    let client: PostgresClient
    let location: PostgresLocation
    let logger: Logger
    private let running: Task<Void, Never>

    /// Connects to the database `location` names and brings its schema up to date (several
    /// gateways starting at once migrate one after another).
    public static func open(_ location: PostgresLocation, logger: Logger = Logger(label: "topicgate.postgres"))
        async throws -> PostgresStore
    {
        let store = PostgresStore(
            client: PostgresClient(configuration: location.configuration, backgroundLogger: logger), location: location,
            logger: logger)
        do {
            try await PostgresSchema.migrate(store)
        } catch {
            store.close()
            throw error
        }
        return store
    }

    private init(client: PostgresClient, location: PostgresLocation, logger: Logger) {
        self.client = client
        self.location = location
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
    func read<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await client.withConnection { connection in try await body(connection) }
    }

    /// Runs `body` in one transaction, committed when it returns and rolled back when it throws
    /// (its error is rethrown as it is). A write that breaks a unique index throws the Kii
    /// conflict error `conflict` names for the index, when it names one.
    func write<T: Sendable>(
        conflict: (String) -> KiiError? = { _ in nil },
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        let logger = self.logger
        do {
            return try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: logger)
                do {
                    let value = try await body(connection)
                    try await connection.query("COMMIT", logger: logger)
                    return value
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            if let mapped = conflict(error.serverInfo?[.constraintName] ?? "") { throw mapped }
            throw error
        }
    }

    /// Runs one statement that returns a row per row it changed (`… RETURNING 1`); true when it
    /// changed one.
    func changesRow(_ query: PostgresQuery, conflict: (String) -> KiiError? = { _ in nil }) async throws -> Bool {
        try await write(conflict: conflict) { connection in try await connection.count(query) > 0 }
    }
}

extension PostgresStore: Store {}
