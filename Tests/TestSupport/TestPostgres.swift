import Logging
import PostgresNIO
import ProcessSupport
import TopicGateBench

/// The PostgreSQL server of this test process (started on first use, stopped at exit) and a new
/// empty database on it for each caller.
public actor TestPostgres {
    public static let shared = TestPostgres()
    private var server: PostgresServer?
    private var created = 0

    /// The URL of a new, empty database.
    public func newDatabase() async throws -> String {
        let server = try await running()
        created += 1
        let name = "test_\(created)"
        var configuration = PostgresConnection.Configuration(
            host: "127.0.0.1", port: server.port, username: server.user, password: nil, database: "postgres",
            tls: .disable)
        configuration.options.requireBackendKeyData = true
        let connection = try await PostgresConnection.connect(
            configuration: configuration, id: created, logger: Logger(label: "test-postgres"))
        do {
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: connection.logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        return server.url(database: name)
    }

    private func running() async throws -> PostgresServer {
        if let server { return server }
        let started = try await PostgresServer.start()
        server = started
        return started
    }
}
