import ArgumentParser
import Foundation
import Hummingbird
import TopicGateCore
import TopicGateServer
import TopicGateStore

/// `topicgate serve`: the HTTP API over the SQLite file, until SIGINT or SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the gateway (HTTP API; stops cleanly on SIGINT/SIGTERM).")

    @OptionGroup var options: ServerOptions
    @OptionGroup(title: "MQTT push") var push: PushOptions
    @OptionGroup(title: "Abuse controls") var abuse: AbuseOptions

    func run() async throws {
        // Nothing the gateway creates (database, secret, logs) is readable by others.
        umask(0o077)
        var configuration = try options.configuration()
        configuration.push = try push.configuration(dataDirectory: configuration.dataDirectory)
        try abuse.apply(to: &configuration)
        let store = try openStore(configuration: configuration)
        let (app, secret) = try await AppRegistry(store: store).defaultApp()
        if let secret {
            print(
                """
                Created the default app (the client secret is shown only now; keep it):
                  appID:        \(app.id.rawValue)
                  appKey:       \(app.key)
                  clientID:     \(app.clientID)
                  clientSecret: \(secret)
                """)
        } else {
            print(
                "Default app: appID \(app.id.rawValue), appKey \(app.key), clientID \(app.clientID) "
                    + "(client secret shown at creation; 'topicgate apps reset-secret \(app.id.rawValue)' makes a new one)")
        }
        print("TopicGate listening on http://\(configuration.host):\(configuration.port), data in \(configuration.databasePath)")
        switch configuration.push?.broker {
        case .embedded(let broker)?:
            print("MQTT: embedded Mosquitto on 127.0.0.1:\(broker.port) (config and log in \(broker.directory))")
        case .external(let host, let port)?:
            print("MQTT: broker at mqtt://\(host):\(port)")
        case nil:
            print("MQTT: off (--broker none); sends are accepted but not delivered")
        }
        // Flushed now, so the credentials show at once even when piped to a file or `tee`.
        fflush(nil)
        let application = try await buildApplication(configuration: configuration, store: store)
        try await application.runService()
    }
}
