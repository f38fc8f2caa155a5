import Logging
internal import PostgresNIO

extension PostgresConnection {
    /// Every row `query` returns.
    func rows(_ query: PostgresQuery) async throws -> [PostgresColumns] {
        try await self.query(query, logger: logger).collect().map { PostgresColumns(row: $0.makeRandomAccess()) }
    }

    /// The first row `query` returns, if any.
    func first(_ query: PostgresQuery) async throws -> PostgresColumns? {
        try await rows(query).first
    }

    /// Runs `query`, discarding what it returns.
    func run(_ query: PostgresQuery) async throws {
        _ = try await self.query(query, logger: logger).collect()
    }

    /// How many rows `query` returns (for `… RETURNING 1`: how many it changed).
    func count(_ query: PostgresQuery) async throws -> Int {
        try await self.query(query, logger: logger).collect().count
    }
}
