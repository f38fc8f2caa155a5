import Foundation
public import Logging
import TopicGateCore
public import TopicGateStore

/// Everything `topicgate serve` can be told, as one plain value. The executable builds it
/// from flags and environment; tests build it directly.
public struct ServerConfiguration: Sendable {
    /// Address the HTTP server listens on.
    public var host: String
    public var port: Int
    /// Folder of the SQLite file, the broker's shared secret and the embedded broker's files.
    public var dataDirectory: String
    /// The PostgreSQL database of a fleet of gateways (`--database`); nil keeps the data in the
    /// SQLite file of `dataDirectory`.
    public var database: PostgresLocation?
    /// Where the change feed listens when not at `database` (`--database-feed`): a direct
    /// connection to PostgreSQL, when the gateways reach it through a pooler in transaction mode.
    public var databaseFeed: PostgresLocation?
    public var logLevel: Logger.Level
    /// bcrypt cost for user and thing passwords (each step doubles the time).
    public var passwordHashCost: UInt8
    /// Largest request body accepted, in bytes.
    public var maximumBodySize: Int
    /// The host name that clients should use to reach this server (Location headers).
    public var publicBaseURL: String?
    /// How long thing states are kept (the latest is always kept).
    public var stateRetention: Duration = .days(30)
    /// Rate limits and lockouts against abuse of sign-up and login.
    public var abuse = AbuseControls()
    /// Remove pseudo users idle for this many days, on a schedule inside `serve`; nil: never.
    public var pseudoUserIdleDays: Int?
    /// How often the scheduled cleanup runs.
    public var pseudoUserCleanupInterval: Duration = .seconds(3600)
    /// Which web pages may call the API from a browser (`--cors-origins`, default every origin).
    public var crossOrigin: CrossOriginPolicy = .anyOrigin
    /// HTTPS for the API (`--tls-cert`, `--tls-key`); nil serves plain HTTP.
    public var tls: TLSFiles?
    /// How long SIGTERM lets the gateway serve on while `/ready` answers 503 before it stops
    /// (`--drain-time`; `GatewayShutdown`).
    public var drainTime: Duration = .zero
    /// An API connection with no request for this long is closed (`--idle-timeout`).
    public var idleTimeout: Duration? = .seconds(60)
    /// A request must be read whole within this of its first byte (`--read-timeout`).
    public var readTimeout: Duration? = .seconds(30)
    /// Open API connections at most, in all and from one client address (`--max-connections`,
    /// `--max-connections-per-address`); past them a connection is answered 503 and closed.
    public var maximumConnections: Int? = 10_000
    public var maximumConnectionsPerAddress: Int? = 256
    /// Open MQTT-over-WebSockets connections at most, on both WebSocket ports together and from
    /// one client address (`--max-websocket-connections`, `…-per-address`); each one also holds
    /// a connection to the broker.
    public var maximumWebSocketConnections: Int? = 10_000
    public var maximumWebSocketConnectionsPerAddress: Int? = 256
    /// The shortest user password (`--min-password-length`): Kii's 4 by default, at most 50.
    /// Thing passwords keep Kii's 1 to 200 characters.
    public var minimumPasswordLength = PasswordRule.user.minimumLength
    /// How long an admin token (client credentials) lives (`--admin-token-ttl`).
    public var adminTokenTTL: Duration = .seconds(8 * 3600)
    /// The bearer token `GET /metrics` asks for (`--metrics-token`); nil: it is open.
    public var metricsToken: String?
    /// This gateway among the gateways of one database (outbox claims, scheduled jobs' leases):
    /// unique per process unless set.
    public var gatewayID = GatewayIdentity.generated()
    /// How long a gateway's claim on outbox messages keeps the other gateways off them: after a
    /// gateway dies, what it had claimed is delivered by another within this time.
    public var outboxLease: Duration = .seconds(30)
    /// MQTT push; nil runs the server without a broker (sends are recorded, not delivered).
    public var push: PushConfiguration?

    public init(
        host: String = "127.0.0.1", port: Int = 8080, dataDirectory: String = "./data", logLevel: Logger.Level = .info,
        passwordHashCost: UInt8 = 10, maximumBodySize: Int = 1 << 20, publicBaseURL: String? = nil,
        push: PushConfiguration? = nil
    ) {
        self.push = push
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.logLevel = logLevel
        self.passwordHashCost = passwordHashCost
        self.maximumBodySize = maximumBodySize
        self.publicBaseURL = publicBaseURL
    }

    /// The SQLite file inside the data directory.
    public var databasePath: String { dataDirectory + "/topicgate.sqlite" }

    /// Where the data is, for people (a PostgreSQL URL without its password).
    public var storeDescription: String { database?.description ?? databasePath }
}
