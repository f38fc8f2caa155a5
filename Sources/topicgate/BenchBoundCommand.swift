import ArgumentParser
import Foundation
import TopicGateBench
import TopicGateServer
import TopicGateStore

/// `topicgate bench-bound`: the minimal durable-publish handler `topicgate bench` starts to
/// measure TopicGate's sends against (not for use on its own).
struct BenchBoundCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-bound",
        abstract: "The minimal durable write-and-publish handler that topicgate bench measures sends against.",
        shouldDisplay: false)

    @Option(help: "The HTTP port on 127.0.0.1.") var port: Int
    @Option(help: "Where its SQLite file goes.") var dataDir: String
    @Option(help: "postgres://… : the store is on PostgreSQL, as a gateway's with --database.") var database: String?
    @Option(help: "mqtt://host:port of the broker.") var broker: String
    @Option(help: "The MQTT secret file the gateway shares with the broker.") var mqttSecretFile: String
    @Option(help: "The gateway's MQTT account.") var mqttGatewayUsername = "topicgate"

    func run() async throws {
        // The gateway's own log handler: the bound pays no more for its loggers than the gateway.
        GatewayLogHandler.bootstrap()
        guard let url = URLComponents(string: broker), url.scheme == "mqtt", let host = url.host,
            let brokerPort = url.port
        else { throw ValidationError("--broker must be mqtt://host:port") }
        let secret = try String(contentsOfFile: mqttSecretFile, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var location: PostgresLocation?
        if let database {
            guard let parsed = PostgresLocation(url: database) else {
                throw ValidationError("--database must be postgres://user@host:port/name")
            }
            location = parsed
        }
        try await DurablePublishBound.run(
            port: port, dataDirectory: dataDir, database: location, brokerHost: host, brokerPort: brokerPort,
            mqttSecret: secret,
            username: mqttGatewayUsername)
    }
}
