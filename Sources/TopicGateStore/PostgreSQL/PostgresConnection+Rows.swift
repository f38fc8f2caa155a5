import Logging
internal import PostgresNIO

/// The statements of the PostgreSQL store, all of them: each reports what it changes to the
/// transaction it runs in (`TransactionChanges`), which moves the store's generations.
extension PostgresConnection {
    /// Every row `query` returns.
    func rows(_ query: PostgresQuery) async throws -> [PostgresColumns] {
        let rows = try await self.query(query, logger: logger).collect()
        TransactionChanges.current?.note(query.sql, returned: rows.count)
        return rows.map { PostgresColumns(row: $0.makeRandomAccess()) }
    }

    /// The first row `query` returns, if any.
    func first(_ query: PostgresQuery) async throws -> PostgresColumns? {
        try await rows(query).first
    }

    /// Runs `query`, discarding what it returns.
    func run(_ query: PostgresQuery) async throws {
        let rows = try await self.query(query, logger: logger).collect()
        TransactionChanges.current?.note(query.sql, returned: rows.count)
    }

    /// How many rows `query` returns (for `… RETURNING 1`: how many it changed).
    func count(_ query: PostgresQuery) async throws -> Int {
        let count = try await self.query(query, logger: logger).collect().count
        TransactionChanges.current?.note(query.sql, returned: count)
        return count
    }

    /// Every row `statement` returns, run as the named statement it is (prepared on this
    /// connection the first time).
    func rows<Statement: NamedStatement>(_ statement: Statement) async throws -> [PostgresColumns] {
        var rows: [PostgresColumns] = []
        for try await row in try await execute(statement, logger: logger) { rows.append(row) }
        TransactionChanges.current?.note(Statement.sql, returned: rows.count)
        return rows
    }

    /// The first row `statement` returns, if any.
    func first<Statement: NamedStatement>(_ statement: Statement) async throws -> PostgresColumns? {
        try await rows(statement).first
    }

    /// Runs `statement`, discarding what it returns.
    func run<Statement: NamedStatement>(_ statement: Statement) async throws {
        _ = try await rows(statement)
    }
}
