import ArgumentParser
import Foundation
import Hummingbird
import Logging
import ProcessSupport
import TopicGateCore
import TopicGateServer
import TopicGateStore

/// `topicgate serve`: the HTTP API over the SQLite file or PostgreSQL, until SIGINT or SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the gateway (HTTP API; stops cleanly on SIGINT/SIGTERM).")

    @OptionGroup var options: ServerOptions
    @OptionGroup(title: "MQTT push") var push: PushOptions
    @OptionGroup(title: "Abuse controls") var abuse: AbuseOptions

    func run() async throws {
        GatewayLogHandler.bootstrap()
        // Nothing the gateway creates (database, secret, logs) is readable by others.
        umask(0o077)
        // Each device the embedded broker holds is one of its descriptors, inherited from here.
        let descriptors = DescriptorLimit.raise()
        var configuration = try options.configuration()
        configuration.push = try push.configuration(dataDirectory: configuration.dataDirectory)
        try abuse.apply(to: &configuration)
        // Keeps `topicgate restore` from replacing the SQLite file while this gateway serves it.
        let servingLock = configuration.database == nil ? try ServingLock.serving(configuration.dataDirectory) : nil
        defer { withExtendedLifetime(servingLock) {} }
        let store = try await openStore(configuration: configuration)
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
                    + "(client secret shown at creation; 'topicgate apps reset-secret \(app.id.rawValue)' makes a "
                    + "new one)"
            )
        }
        let scheme = configuration.tls == nil ? "http" : "https"
        print(
            "TopicGate \(TopicGateVersion.current) listening on \(scheme)://\(configuration.host):\(configuration.port), data in "
                + "\(configuration.storeDescription)"
        )
        print(
            "Console: \(scheme)://\(configuration.host):\(configuration.port)/console (sign in with the appID, "
                + "clientID and clientSecret)")
        if let push = configuration.push {
            let listeners = push.listeners
            switch push.broker {
            case .embedded(let broker):
                print(
                    "MQTT: embedded Mosquitto on \(listeners.host):\(broker.port) (config and log in "
                        + "\(broker.directory)); it may hold up to \(descriptors) open descriptors (one per device)"
                )
                if broker.filesDirectory != broker.directory {
                    print(
                        "The broker's own files (persistence, pid) are in \(broker.filesDirectory): its 'mosquitto' "
                            + "account cannot reach \(broker.directory)")
                }
                if listeners.tls != nil, let tlsPort = listeners.tlsPort {
                    print("MQTT over TLS: \(listeners.host):\(tlsPort)")
                }
            case .external(let host, let port):
                print("MQTT: broker at \(push.brokerTLS == nil ? "mqtt" : "mqtts")://\(host):\(port)")
            case .several(let brokers):
                for broker in brokers {
                    let ports = broker.publicPorts
                    print(
                        "MQTT: broker \(broker.name) at \(push.brokerTLS == nil ? "mqtt" : "mqtts")://\(broker.host):\(broker.port); its devices are told host "
                            + "\(broker.publicHost), ports tcp \(ports.tcp), ssl \(ports.ssl), ws \(ports.ws), wss "
                            + "\(ports.wss)")
                }
                print("New installations go to the broker that serves fewest; WebSockets are each broker's own.")
            }
            if push.relaysWebSockets, let ws = listeners.webSocketPort {
                print("MQTT over WebSockets: ws://\(listeners.host):\(ws)/mqtt (relayed to the broker)")
                if listeners.tls != nil, let securePort = listeners.secureWebSocketPort {
                    print("MQTT over secure WebSockets: wss://\(listeners.host):\(securePort)/mqtt")
                }
            }
            if push.brokers.count == 1 {
                let ports = push.advertisedPorts
                print(
                    "Devices are told: host \(push.advertisedHost), ports tcp \(ports.tcp), ssl \(ports.ssl), ws "
                        + "\(ports.ws), wss \(ports.wss) (0: not served)"
                )
            }
        } else {
            print("MQTT: off (--broker none); sends are accepted but not delivered")
        }
        // Flushed now, so the credentials show at once even when piped to a file or `tee`.
        fflush(nil)
        let drain = GatewayDrain()
        let application = try await buildApplication(configuration: configuration, store: store, drain: drain)
        var logger = Logger(label: "topicgate")
        logger.logLevel = configuration.logLevel
        try await GatewayShutdown.run(application, drain: drain, drainTime: configuration.drainTime, logger: logger)
    }
}
