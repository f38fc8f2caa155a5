import Foundation
import NIOSSL
internal import PostgresNIO

/// Where a PostgreSQL database is, from a URL as libpq and most tools write it:
/// `postgres://user:password@host:port/database?sslmode=disable|prefer|require`.
/// The password stays in memory only; `description` leaves it out.
public struct PostgresLocation: Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var sslMode: String
    /// Connections each gateway keeps open at most.
    public var maximumConnections: Int

    /// Nil when `url` is not a `postgres://` (or `postgresql://`) URL with a host.
    public init?(url: String, maximumConnections: Int = 20) {
        guard let components = URLComponents(string: url),
            components.scheme == "postgres" || components.scheme == "postgresql",
            let host = components.host, !host.isEmpty
        else { return nil }
        self.host = host
        port = components.port ?? 5432
        user = components.user.flatMap { $0.removingPercentEncoding } ?? "postgres"
        password = components.password.flatMap { $0.removingPercentEncoding }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? user : path
        sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
        guard ["disable", "prefer", "require"].contains(sslMode) else { return nil }
        self.maximumConnections = maximumConnections
    }

    /// The same server, another database.
    public func database(_ name: String) -> PostgresLocation {
        var other = self
        other.database = name
        return other
    }

    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)?sslmode=\(sslMode)" }

    var configuration: PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS =
            switch sslMode {
            case "disable": .disable
            case "require": .require(.makeClientConfiguration())
            default: .prefer(.makeClientConfiguration())
            }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
        // No keep-alive query, and idle connections closed after 10 s: the pool times an idle
        // connection's keep-alive and idle timeout with sleeping tasks, started each time a
        // statement gives the connection back and cancelled when the next takes it, and a
        // cancelled `Task.sleep` keeps its task's memory until the time it slept for has passed
        // (30 and 60 s by default): at a few hundred statements a second that was 30 MiB more
        // per gateway, growing for a minute. Connections are still opened on demand (a pool
        // opened whole at start made every gateway fork 20 PostgreSQL backends at once).
        configuration.options.maximumConnections = maximumConnections
        configuration.options.keepAliveBehavior = nil
        configuration.options.connectionIdleTimeout = .seconds(10)
        return configuration
    }

    /// For a connection of its own, outside the pool (the change feed's).
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS =
            switch sslMode {
            case "disable": .disable
            case "require": .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            default: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        return PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
    }
}
