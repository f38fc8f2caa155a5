import ArgumentParser
import Foundation
import Logging
import TopicGateCore
import TopicGateServer
import TopicGateStore

/// Flags of `topicgate serve`; each falls back to a `TOPICGATE_*` environment variable, then
/// to the embedded default. Where the data is comes from `StoreOptions`, which the local
/// commands (`apps`, `backup`, `restore`) take alone.
struct ServerOptions: ParsableArguments {
    @OptionGroup var store: StoreOptions

    @Option(help: "Address to listen on (env TOPICGATE_HOST; default 127.0.0.1).")
    var host: String?

    @Option(help: "Port to listen on (env TOPICGATE_PORT; default 8080).")
    var port: Int?

    @Option(
        help: ArgumentHelp(
            "Where the change feed (LISTEN) connects, when not at --database: a direct postgres:// URL, for gateways "
                + "that reach PostgreSQL through a pooler in transaction mode (env TOPICGATE_DATABASE_FEED_URL; "
                + "default: --database).",
            valueName: "url"))
    var databaseFeed: String?

    @Option(
        help: ArgumentHelp(
            "Seconds a gateway's claim on outbox messages keeps other gateways off them; a dead gateway's "
                + "claims are delivered by another after this (env TOPICGATE_OUTBOX_LEASE; default 30).",
            valueName: "seconds"))
    var outboxLease: Int?

    @Option(
        help: ArgumentHelp(
            "This gateway's name among those sharing --database, in claims and logs (env TOPICGATE_GATEWAY_ID; "
                + "default host-pid-random; with SQLite, kept in <data-dir>/gateway-id).",
            valueName: "name"))
    var gatewayID: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical (env TOPICGATE_LOG_LEVEL; default info).")
    var logLevel: String?

    @Option(help: "bcrypt cost of passwords, 4 to 31 (env TOPICGATE_BCRYPT_COST; default 10).")
    var bcryptCost: UInt8?

    @Option(help: "Base URL for Location headers, e.g. https://push.example.com (env TOPICGATE_PUBLIC_URL).")
    var publicURL: String?

    @Option(
        help: "Days thing states are kept; the latest is always kept (env TOPICGATE_STATE_RETENTION_DAYS; default 30).")
    var stateRetentionDays: Int?

    @Option(
        help: ArgumentHelp(
            "Origins of web pages allowed to call the API from a browser, comma-separated "
                + "(https://app.example.com), or '*' (env TOPICGATE_CORS_ORIGINS; default *).",
            valueName: "origins"))
    var corsOrigins: String?

    @Option(
        help: ArgumentHelp(
            "Seconds an admin token (client credentials, as the console signs in) lives, 60 to 2592000 (env "
                + "TOPICGATE_ADMIN_TOKEN_TTL; default 28800, 8 hours).",
            valueName: "seconds"))
    var adminTokenTTL: Int?

    @Option(
        help: ArgumentHelp(
            "A bearer token GET /metrics asks for, at least 16 characters (env TOPICGATE_METRICS_TOKEN; default: none, "
                + "/metrics is open to whoever reaches the port).",
            valueName: "token"))
    var metricsToken: String?

    @Option(
        help: ArgumentHelp(
            "Seconds SIGTERM lets the gateway serve on while /ready answers 503, so that a load balancer checking "
                + "/ready takes it out first; SIGINT stops at once (env TOPICGATE_DRAIN_TIME; default 0).",
            valueName: "seconds"))
    var drainTime: String?

    @Option(
        help: ArgumentHelp(
            "Seconds an API connection may stay open with no request (a WebSocket one: before its first byte), or off "
                + "(env TOPICGATE_IDLE_TIMEOUT; default 60).",
            valueName: "seconds"))
    var idleTimeout: String?

    @Option(
        help: ArgumentHelp(
            "Seconds from a request's first byte to its answer, headers and body read, or off (env "
                + "TOPICGATE_READ_TIMEOUT; default 30).",
            valueName: "seconds"))
    var readTimeout: String?

    @Option(
        help: ArgumentHelp(
            "Open API connections at most, or off; past it a connection is answered 503 (env "
                + "TOPICGATE_MAX_CONNECTIONS; default 10000).",
            valueName: "count"))
    var maxConnections: String?

    @Option(
        help: ArgumentHelp(
            "Open API connections from one client address (IPv6: one /64) at most, or off; raise it behind a "
                + "proxy that does not forward (env TOPICGATE_MAX_CONNECTIONS_PER_ADDRESS; default 256).",
            valueName: "count"))
    var maxConnectionsPerAddress: String?

    @Option(
        help: ArgumentHelp(
            "Open MQTT-over-WebSockets connections at most (both WebSocket ports), or off; past it an upgrade is "
                + "answered 503 (env TOPICGATE_MAX_WEBSOCKET_CONNECTIONS; default 10000).",
            valueName: "count"))
    var maxWebsocketConnections: String?

    @Option(
        help: ArgumentHelp(
            "Open MQTT-over-WebSockets connections from one client address (IPv6: one /64) at most, or off; raise "
                + "it for devices behind one NAT (env TOPICGATE_MAX_WEBSOCKET_CONNECTIONS_PER_ADDRESS; default 256).",
            valueName: "count"))
    var maxWebsocketConnectionsPerAddress: String?

    @Option(
        help: ArgumentHelp(
            "The shortest user password, 4 to 50 characters (env TOPICGATE_MIN_PASSWORD_LENGTH; default 4, Kii's "
                + "rule). Thing passwords keep Kii's 1 to 200.",
            valueName: "characters"))
    var minPasswordLength: Int?

    @Option(help: "PEM certificate (chain) for HTTPS on the API; with --tls-key (env TOPICGATE_TLS_CERT).")
    var tlsCert: String?

    @Option(help: "PEM private key for HTTPS on the API (env TOPICGATE_TLS_KEY).")
    var tlsKey: String?

    /// The name of the one gateway of a SQLite file, kept in `<data-dir>/gateway-id`: the same
    /// after a restart, so that what the gateway had claimed in the outbox when it died is its
    /// own again at once rather than after the lease (no other gateway shares the file).
    static func embeddedGatewayID(dataDirectory: String) throws -> String {
        let path = dataDirectory + "/gateway-id"
        if let kept = try? String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines),
            IDSyntax.isWellFormed(kept)
        {
            return kept
        }
        let id = GatewayIdentity.generated()
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        try (id + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return id
    }

    func configuration() throws -> ServerConfiguration {
        let environment = ProcessInfo.processInfo.environment
        var configuration = try store.configuration()
        configuration.host = host ?? environment["TOPICGATE_HOST"] ?? configuration.host
        if let port = try port ?? environment["TOPICGATE_PORT"].map(Self.integer) {
            guard (1...65535).contains(port) else { throw ValidationError("\(port) is not a port (--port).") }
            configuration.port = port
        }
        if let url = databaseFeed ?? environment["TOPICGATE_DATABASE_FEED_URL"], !url.isEmpty {
            guard configuration.database != nil, let location = PostgresLocation(url: url) else {
                throw ValidationError("The change feed is a postgres:// URL, and goes with --database.")
            }
            configuration.databaseFeed = location
        }
        if let seconds = try outboxLease ?? environment["TOPICGATE_OUTBOX_LEASE"].map(Self.integer) {
            guard (1...3600).contains(seconds) else { throw ValidationError("The outbox lease is 1 to 3600 seconds.") }
            configuration.outboxLease = .seconds(seconds)
        }
        if let id = gatewayID ?? environment["TOPICGATE_GATEWAY_ID"], !id.isEmpty {
            guard IDSyntax.isWellFormed(id) else {
                throw ValidationError("A gateway ID is 1 to 128 letters, digits, '-', '_' or '.'.")
            }
            configuration.gatewayID = id
        } else if configuration.database == nil {
            configuration.gatewayID = try Self.embeddedGatewayID(dataDirectory: configuration.dataDirectory)
        }
        if let level = logLevel ?? environment["TOPICGATE_LOG_LEVEL"] {
            guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
                throw ValidationError("Unknown log level '\(level)'.")
            }
            configuration.logLevel = parsed
        }
        if let cost = try bcryptCost ?? environment["TOPICGATE_BCRYPT_COST"].map(Self.integer).map(UInt8.init) {
            guard (4...31).contains(cost) else { throw ValidationError("The bcrypt cost is 4 to 31.") }
            configuration.passwordHashCost = cost
        }
        configuration.publicBaseURL = publicURL ?? environment["TOPICGATE_PUBLIC_URL"]
        if let days = try stateRetentionDays ?? environment["TOPICGATE_STATE_RETENTION_DAYS"].map(Self.integer) {
            guard days >= 1 else { throw ValidationError("States are kept at least 1 day.") }
            configuration.stateRetention = .days(days)
        }
        if let origins = corsOrigins ?? environment["TOPICGATE_CORS_ORIGINS"] {
            guard let policy = CrossOriginPolicy(parsing: origins) else {
                throw ValidationError(
                    "CORS origins are '*' or a comma-separated list of http(s)://host[:port], not '\(origins)'.")
            }
            configuration.crossOrigin = policy
        }
        func count(_ flag: String?, _ variable: String, _ current: Int?) throws -> Int? {
            try Self.countOrOff(flag ?? environment[variable], variable: variable, current: current)
        }
        if let text = drainTime ?? environment["TOPICGATE_DRAIN_TIME"] {
            guard let seconds = Int(text), (0...300).contains(seconds) else {
                throw ValidationError("The drain time is 0 to 300 seconds, not '\(text)' (TOPICGATE_DRAIN_TIME).")
            }
            configuration.drainTime = .seconds(seconds)
        }
        configuration.idleTimeout = try count(idleTimeout, "TOPICGATE_IDLE_TIMEOUT", 60).map { .seconds($0) }
        configuration.readTimeout = try count(readTimeout, "TOPICGATE_READ_TIMEOUT", 30).map { .seconds($0) }
        configuration.maximumConnections = try count(
            maxConnections, "TOPICGATE_MAX_CONNECTIONS", configuration.maximumConnections)
        configuration.maximumConnectionsPerAddress = try count(
            maxConnectionsPerAddress, "TOPICGATE_MAX_CONNECTIONS_PER_ADDRESS",
            configuration.maximumConnectionsPerAddress)
        configuration.maximumWebSocketConnections = try count(
            maxWebsocketConnections, "TOPICGATE_MAX_WEBSOCKET_CONNECTIONS", configuration.maximumWebSocketConnections)
        configuration.maximumWebSocketConnectionsPerAddress = try count(
            maxWebsocketConnectionsPerAddress, "TOPICGATE_MAX_WEBSOCKET_CONNECTIONS_PER_ADDRESS",
            configuration.maximumWebSocketConnectionsPerAddress)
        if let length = try minPasswordLength ?? environment["TOPICGATE_MIN_PASSWORD_LENGTH"].map(Self.integer) {
            guard (PasswordRule.user.minimumLength...PasswordRule.user.maximumLength).contains(length) else {
                throw ValidationError("The shortest user password is 4 to 50 characters.")
            }
            configuration.minimumPasswordLength = length
        }
        if let seconds = try adminTokenTTL ?? environment["TOPICGATE_ADMIN_TOKEN_TTL"].map(Self.integer) {
            guard (60...2_592_000).contains(seconds) else {
                throw ValidationError("The admin token TTL is 60 to 2592000 seconds.")
            }
            configuration.adminTokenTTL = .seconds(seconds)
        }
        if let token = metricsToken ?? environment["TOPICGATE_METRICS_TOKEN"], !token.isEmpty {
            guard token.count >= 16, !token.contains(where: \.isWhitespace) else {
                throw ValidationError("The metrics token is at least 16 characters, without spaces.")
            }
            configuration.metricsToken = token
        }
        configuration.tls = try Self.tlsFiles(
            certificate: tlsCert ?? environment["TOPICGATE_TLS_CERT"], key: tlsKey ?? environment["TOPICGATE_TLS_KEY"],
            authority: nil, what: "--tls-cert and --tls-key")
        return configuration
    }

    /// Both files or neither (an empty value is none); checked now, so that a bad file stops
    /// the start with its name.
    static func tlsFiles(certificate: String?, key: String?, authority: String?, what: String) throws -> TLSFiles? {
        func given(_ path: String?) -> String? { path.flatMap { $0.isEmpty ? nil : $0 } }
        let (certificate, key, authority) = (given(certificate), given(key), given(authority))
        switch (certificate, key) {
        case (nil, nil):
            guard authority == nil else { throw ValidationError("A TLS CA file needs \(what).") }
            return nil
        case (let certificate?, let key?):
            let files = TLSFiles(certificate: certificate, privateKey: key, certificateAuthority: authority)
            do { try files.check() } catch { throw ValidationError("\(error)") }
            return files
        default:
            throw ValidationError("TLS needs both \(what).")
        }
    }

    /// A flag's or variable's `text` read as a whole number from 1, or `off` (nil); `current`
    /// when it was not given.
    static func countOrOff(_ text: String?, variable: String, current: Int?) throws -> Int? {
        guard let text else { return current }
        if text == "off" { return nil }
        guard let value = Int(text), value >= 1 else {
            throw ValidationError("'\(text)' is a whole number from 1, or off (\(variable)).")
        }
        return value
    }

    static func integer(_ text: String) throws -> Int {
        guard let value = Int(text) else { throw ValidationError("'\(text)' is not a number.") }
        return value
    }
}
