import ArgumentParser
import Foundation
import MQTTBridge
import ProcessSupport
import TopicGateServer

/// The flags of `topicgate serve` that choose the broker and what devices are told; each
/// falls back to a `TOPICGATE_*` environment variable, then to the embedded default (a
/// Mosquitto child on 127.0.0.1:1883 with `broker-config/mosquitto.conf`).
struct PushOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "mqtt://host:port (or mqtts:// for TLS, default port 8883) of a running broker that loads TopicGate's "
                + "plugin, or 'none' to run without push (env TOPICGATE_BROKER; default: start Mosquitto). Several "
                + "brokers, comma-separated and of one scheme, spread the "
                + "devices over them; each may add ?name=N&public=HOST&tcp=P&ssl=P&ws=P&wss=P (what its devices are "
                + "told; default: its own host and port, and --mqtt-public-ports).",
            valueName: "url"))
    var broker: String?

    @Option(
        help: ArgumentHelp(
            "PEM CA certificates the gateway trusts for an mqtts:// broker (env TOPICGATE_BROKER_TLS_CA; default: "
                + "the system's).",
            valueName: "file"))
    var brokerTlsCa: String?

    @Option(
        help: ArgumentHelp(
            "PEM client certificate the gateway presents to an mqtts:// broker that asks for one; with "
                + "--broker-tls-key (env TOPICGATE_BROKER_TLS_CERT).",
            valueName: "file"))
    var brokerTlsCert: String?

    @Option(
        help: ArgumentHelp(
            "PEM private key of --broker-tls-cert (env TOPICGATE_BROKER_TLS_KEY).", valueName: "file"))
    var brokerTlsKey: String?

    @Option(help: "Port of the embedded broker's loopback listener (env TOPICGATE_MQTT_PORT; default 1883).")
    var mqttPort: Int?

    @Option(help: "The mosquitto executable (env TOPICGATE_MOSQUITTO; default: PATH, then /usr/sbin).")
    var mosquitto: String?

    @Option(
        help: ArgumentHelp(
            "Template of the embedded broker's configuration (env TOPICGATE_BROKER_CONFIG; default "
                + "broker-config/mosquitto.conf).")
    )
    var brokerConfig: String?

    @Option(
        help: ArgumentHelp(
            "The auth plugin, libTopicGateMosquittoAuth.so (env TOPICGATE_BROKER_PLUGIN; default: beside the "
                + "executable).")
    )
    var brokerPlugin: String?

    @Option(
        help: ArgumentHelp(
            "File of the secret shared with the broker plugin, created on first start (env "
                + "TOPICGATE_MQTT_SECRET_FILE; default <data-dir>/mqtt-secret).")
    )
    var mqttSecretFile: String?

    @Option(
        help: ArgumentHelp(
            "The gateway's MQTT account, the plugin's only superuser (env TOPICGATE_MQTT_GATEWAY_USERNAME; default "
                + "topicgate).")
    )
    var mqttGatewayUsername: String?

    @Option(help: "Host devices are told to connect to (env TOPICGATE_MQTT_PUBLIC_HOST; default: the broker's host).")
    var mqttPublicHost: String?

    @Option(
        help: ArgumentHelp(
            "Ports devices are told, as tcp,ssl,ws,wss, when a proxy or NAT is in front (env "
                + "TOPICGATE_MQTT_PUBLIC_PORTS; default: where TopicGate listens, 0 for what does not run).")
    )
    var mqttPublicPorts: String?

    @Option(help: "Seconds an MQTT password stays valid (env TOPICGATE_MQTT_CREDENTIAL_TTL; default 2592000, 30 days).")
    var mqttCredentialTTL: Int64?

    @Option(
        help: ArgumentHelp(
            "The broker's max_packet_size in bytes; the embedded broker is started with it, and larger sends and "
                + "commands are refused (env TOPICGATE_MQTT_MAX_PACKET_SIZE; default 262144).")
    )
    var mqttMaxPacketSize: Int?

    @Option(
        help: ArgumentHelp(
            "How long a device may stay away and still get the pushes sent meanwhile, in hours or days (96h, 4d): the "
                + "embedded broker then drops its session with what waits in it (env TOPICGATE_PUSH_LIFE; default 4d).",
            valueName: "life"))
    var pushLife: String?

    @Option(
        help: ArgumentHelp(
            "compact (57 characters, fits every Kii SDK) or jwt (an HS256 JWT with EMQX's acl claim, for an "
                + "EMQX-style broker; too long for Kii's C thing SDK) (env TOPICGATE_MQTT_CREDENTIAL_FORM; default "
                + "compact).",
            valueName: "form"))
    var mqttCredentialForm: String?

    @Option(
        help: ArgumentHelp(
            "Address the embedded broker's listeners and the MQTT-over-WebSockets relay bind to; 0.0.0.0 for every "
                + "interface (env TOPICGATE_MQTT_HOST; default 127.0.0.1).")
    )
    var mqttHost: String?

    @Option(
        help: ArgumentHelp(
            "PEM certificate (chain) for MQTT over TLS and secure WebSockets; with --mqtt-tls-key (env "
                + "TOPICGATE_MQTT_TLS_CERT).")
    )
    var mqttTlsCert: String?

    @Option(help: "PEM private key for MQTT over TLS and secure WebSockets (env TOPICGATE_MQTT_TLS_KEY).")
    var mqttTlsKey: String?

    @Option(help: "PEM CA bundle sent with the MQTT TLS certificate (env TOPICGATE_MQTT_TLS_CA; optional).")
    var mqttTlsCa: String?

    @Option(
        help: ArgumentHelp(
            "Port of the embedded broker's MQTT-over-TLS listener, with the TLS files; 0 turns it off (env "
                + "TOPICGATE_MQTT_TLS_PORT; default 8883).")
    )
    var mqttTlsPort: Int?

    @Option(
        help: ArgumentHelp(
            "Port of MQTT over WebSockets, relayed by the gateway to the broker; 0 turns it off (env "
                + "TOPICGATE_MQTT_WS_PORT; default 12470).")
    )
    var mqttWsPort: Int?

    @Option(
        help: ArgumentHelp(
            "Port of MQTT over secure WebSockets, with the TLS files; 0 turns it off (env TOPICGATE_MQTT_WSS_PORT; "
                + "default 12473)."))
    var mqttWssPort: Int?

    /// The push configuration, or nil with `--broker none`.
    func configuration(dataDirectory: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> PushConfiguration?
    {
        // Checked even without a broker: a wrong TLS file is reported, not ignored.
        let listeners = try self.listeners(environment: environment)
        let brokerURL = broker ?? environment["TOPICGATE_BROKER"]
        if brokerURL?.lowercased() == "none" { return nil }
        let publicPorts = try self.publicPorts(environment: environment)
        let broker: PushConfiguration.Broker
        var brokerTLS: BrokerTLS?
        if let brokerURL {
            let listed = brokerURL.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let secure = Set(listed.map { $0.lowercased().hasPrefix("mqtts://") })
            guard secure.count == 1 else {
                throw ValidationError("The brokers are all mqtt:// or all mqtts://, not a mix (\(brokerURL)).")
            }
            if secure.contains(true) {
                let tls = BrokerTLS(
                    certificateAuthority: given(brokerTlsCa ?? environment["TOPICGATE_BROKER_TLS_CA"]),
                    certificate: given(brokerTlsCert ?? environment["TOPICGATE_BROKER_TLS_CERT"]),
                    privateKey: given(brokerTlsKey ?? environment["TOPICGATE_BROKER_TLS_KEY"]))
                do { try tls.check() } catch { throw ValidationError("\(error)") }
                brokerTLS = tls
            }
            if listed.count > 1 {
                let brokers = try listed.map {
                    try Self.brokerAddress(
                        $0, publicHost: mqttPublicHost ?? environment["TOPICGATE_MQTT_PUBLIC_HOST"],
                        publicPorts: publicPorts)
                }
                guard Set(brokers.map(\.name)).count == brokers.count else {
                    throw ValidationError("Each broker needs its own name (add ?name=… to tell them apart).")
                }
                broker = .several(brokers)
            } else {
                broker = try Self.external(brokerURL)
            }
        } else {
            broker = .embedded(try embedded(dataDirectory: dataDirectory, environment: environment))
        }
        if brokerTLS == nil,
            [brokerTlsCa, brokerTlsCert, brokerTlsKey].contains(where: { $0 != nil })
                || ["TOPICGATE_BROKER_TLS_CA", "TOPICGATE_BROKER_TLS_CERT", "TOPICGATE_BROKER_TLS_KEY"].contains(
                    where: {
                        environment[$0] != nil
                    })
        {
            throw ValidationError("The --broker-tls-* files are for a broker given as mqtts://host:port.")
        }
        let defaultHost: String =
            if case .external(let host, _) = broker { host } else if listeners.listensEverywhere {
                ProcessInfo.processInfo.hostName
            } else { listeners.host }
        var push = PushConfiguration(
            broker: broker,
            secretFile: mqttSecretFile ?? environment["TOPICGATE_MQTT_SECRET_FILE"] ?? dataDirectory + "/mqtt-secret",
            advertisedHost: mqttPublicHost ?? environment["TOPICGATE_MQTT_PUBLIC_HOST"] ?? defaultHost)
        push.listeners = listeners
        push.brokerTLS = brokerTLS
        if let username = mqttGatewayUsername ?? environment["TOPICGATE_MQTT_GATEWAY_USERNAME"] {
            guard !username.isEmpty else { throw ValidationError("The gateway's MQTT username cannot be empty.") }
            push.gatewayUsername = username
        }
        push.publicPorts = publicPorts
        if let ttl = try mqttCredentialTTL ?? environment["TOPICGATE_MQTT_CREDENTIAL_TTL"].map(Self.seconds) {
            guard ttl >= 60 else { throw ValidationError("The MQTT credential TTL is at least 60 seconds.") }
            push.credentialTTL = .seconds(ttl)
        }
        if let size = try mqttMaxPacketSize ?? environment["TOPICGATE_MQTT_MAX_PACKET_SIZE"].map(ServerOptions.integer)
        {
            guard (4096...268_435_455).contains(size) else {
                throw ValidationError("The MQTT packet limit is from 4096 to 268435455 bytes.")
            }
            push.maximumPacketSize = size
        }
        if let text = pushLife ?? environment["TOPICGATE_PUSH_LIFE"] {
            guard let life = PushLife(parsing: text) else {
                throw ValidationError(
                    "The push life is a whole number of hours or days, 1h to 365d (96h, 4d), not '\(text)' "
                        + "(TOPICGATE_PUSH_LIFE).")
            }
            push.life = life
        }
        if let form = mqttCredentialForm ?? environment["TOPICGATE_MQTT_CREDENTIAL_FORM"] {
            guard let parsed = MQTTCredentialForm(rawValue: form.lowercased()) else {
                throw ValidationError("The MQTT credential form is compact or jwt, not '\(form)'.")
            }
            push.credentialForm = parsed
        }
        return push
    }

    /// `--mqtt-public-ports`: tcp,ssl,ws,wss, or nil when not given.
    func publicPorts(environment: [String: String]) throws -> MQTTPorts? {
        guard let ports = mqttPublicPorts ?? environment["TOPICGATE_MQTT_PUBLIC_PORTS"] else { return nil }
        let parsed = ports.split(separator: ",", omittingEmptySubsequences: false).map {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        guard parsed.count == 4, let tcp = parsed[0], let ssl = parsed[1], let ws = parsed[2], let wss = parsed[3],
            (1...65535).contains(tcp), [ssl, ws, wss].allSatisfy({ (0...65535).contains($0) })
        else {
            throw ValidationError(
                "The MQTT public ports are four ports: tcp,ssl,ws,wss (e.g. 1883,8883,12470,12473; 0 for none).")
        }
        return MQTTPorts(tcp: tcp, ssl: ssl, ws: ws, wss: wss)
    }

    /// The device listeners of `--mqtt-host`, `--mqtt-tls-*` and `--mqtt-ws*-port`.
    func listeners(environment: [String: String]) throws -> DeviceListeners {
        var listeners = DeviceListeners()
        if let host = mqttHost ?? environment["TOPICGATE_MQTT_HOST"] {
            guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "/" }) else {
                throw ValidationError(
                    "The MQTT host is an address to listen on, such as 127.0.0.1 or 0.0.0.0, not '\(host)'.")
            }
            listeners.host = host
        }
        func port(_ flag: Int?, _ variable: String, allowingZero: Bool = false) throws -> Int? {
            guard let value = try flag ?? environment[variable].map(ServerOptions.integer) else { return nil }
            guard (allowingZero ? 0...65535 : 1...65535).contains(value) else {
                throw ValidationError("\(value) is not a port (\(variable)).")
            }
            return value
        }
        // 0 turns a listener off, the same for each of the three.
        if let tls = try port(mqttTlsPort, "TOPICGATE_MQTT_TLS_PORT", allowingZero: true) {
            listeners.tlsPort = tls == 0 ? nil : tls
        }
        if let ws = try port(mqttWsPort, "TOPICGATE_MQTT_WS_PORT", allowingZero: true) {
            listeners.webSocketPort = ws == 0 ? nil : ws
        }
        if let wss = try port(mqttWssPort, "TOPICGATE_MQTT_WSS_PORT", allowingZero: true) {
            listeners.secureWebSocketPort = wss == 0 ? nil : wss
        }
        listeners.tls = try ServerOptions.tlsFiles(
            certificate: mqttTlsCert ?? environment["TOPICGATE_MQTT_TLS_CERT"],
            key: mqttTlsKey ?? environment["TOPICGATE_MQTT_TLS_KEY"],
            authority: mqttTlsCa ?? environment["TOPICGATE_MQTT_TLS_CA"],
            what: "--mqtt-tls-cert and --mqtt-tls-key")
        return listeners
    }

    /// `mqtt://host:port` (port 1883 when left out) or `mqtts://host:port` (8883).
    static func external(_ url: String) throws -> PushConfiguration.Broker {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            ["mqtt", "mqtts"].contains(scheme), let host = components.host, !host.isEmpty
        else { throw ValidationError("The broker is given as mqtt://host:port or mqtts://host:port, not '\(url)'.") }
        let port = components.port ?? (scheme == "mqtts" ? 8883 : 1883)
        guard (1...65535).contains(port) else { throw ValidationError("The broker port \(port) is not a port.") }
        return .external(host: host, port: port)
    }

    /// One of several brokers: `mqtt://host:port` where the gateways reach it, then optionally
    /// `?name=…&public=…&tcp=…&ssl=…&ws=…&wss=…`: its name in the store (default host:port), and
    /// the host and ports its devices are told (default `publicHost` or its own host, and
    /// `publicPorts` or its own port with no TLS or WebSockets).
    static func brokerAddress(_ url: String, publicHost: String?, publicPorts: MQTTPorts?) throws -> BrokerAddress {
        guard case .external(let host, let port) = try external(url), let components = URLComponents(string: url)
        else { throw ValidationError("The broker is given as mqtt://host:port or mqtts://host:port, not '\(url)'.") }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard let value = item.value, !value.isEmpty,
                ["name", "public", "tcp", "ssl", "ws", "wss"].contains(item.name)
            else {
                throw ValidationError(
                    "A broker takes ?name=, public=, tcp=, ssl=, ws= and wss= with a value, not '\(item.name)' (\(url))."
                )
            }
            query[item.name] = value
        }
        var ports = publicPorts ?? MQTTPorts(tcp: port, ssl: 0, ws: 0, wss: 0)
        for (key, path) in [("tcp", \MQTTPorts.tcp), ("ssl", \.ssl), ("ws", \.ws), ("wss", \.wss)] {
            guard let text = query[key] else { continue }
            guard let value = Int(text), (key == "tcp" ? 1...65535 : 0...65535).contains(value) else {
                throw ValidationError("The broker's \(key) port '\(text)' is not a port (\(url)).")
            }
            ports[keyPath: path] = value
        }
        let name = query["name"] ?? "\(host):\(port)"
        guard name.count <= 128, !name.contains(where: { $0 == "\n" || $0 == "," }) else {
            throw ValidationError("A broker's name is up to 128 characters, with no comma or newline.")
        }
        return BrokerAddress(
            name: name, host: host, port: port, publicHost: query["public"] ?? publicHost ?? host, publicPorts: ports)
    }

    func embedded(dataDirectory: String, environment: [String: String]) throws -> EmbeddedBrokerConfiguration {
        let port = try mqttPort ?? environment["TOPICGATE_MQTT_PORT"].map(ServerOptions.integer) ?? 1883
        guard (1...65535).contains(port) else { throw ValidationError("The MQTT port \(port) is not a port.") }
        guard
            let mosquittoPath = mosquitto ?? environment["TOPICGATE_MOSQUITTO"]
                ?? MosquittoExecutable.find(environment: environment)
        else {
            throw ValidationError(
                "Cannot find mosquitto; install it (apt-get install mosquitto, or `make run`) or give --mosquitto.")
        }
        let templatePath =
            try brokerConfig ?? environment["TOPICGATE_BROKER_CONFIG"]
            ?? Self.firstExisting(
                [
                    // The install's own paths only, never the working directory (root starting
                    // the gateway in a folder another user writes would run that user's lines):
                    // the checkout that built this executable (.build/debug/ is a link to
                    // .build/<triple>/debug/), then an installed share folder, then /etc.
                    Self.besideExecutable("../../broker-config/mosquitto.conf"),
                    Self.besideExecutable("../../../broker-config/mosquitto.conf"),
                    Self.besideExecutable("../share/topicgate/mosquitto.conf"), "/etc/topicgate/mosquitto.conf",
                ], what: "broker-config/mosquitto.conf (give --broker-config)")
        let pluginPath =
            try brokerPlugin ?? environment["TOPICGATE_BROKER_PLUGIN"]
            ?? Self.firstExisting(
                [
                    Self.besideExecutable("libTopicGateMosquittoAuth.so"),
                    Self.besideExecutable("../lib/libTopicGateMosquittoAuth.so"),
                    Self.besideExecutable("../lib/topicgate/libTopicGateMosquittoAuth.so"),
                    "/usr/lib/topicgate/libTopicGateMosquittoAuth.so",
                ], what: "the broker plugin libTopicGateMosquittoAuth.so (run `swift build`, or give --broker-plugin)")
        return EmbeddedBrokerConfiguration(
            mosquittoPath: mosquittoPath, templatePath: templatePath, pluginPath: pluginPath, port: port,
            directory: dataDirectory + "/broker")
    }

    /// `relative` resolved against the folder of the running executable.
    static func besideExecutable(_ relative: String) -> String {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent(relative)
            .standardizedFileURL.path
    }

    static func firstExisting(_ candidates: [String], what: String) throws -> String {
        guard let found = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }) else {
            throw ValidationError("Cannot find \(what); looked at: \(candidates.joined(separator: ", ")).")
        }
        return found
    }

    static func seconds(_ text: String) throws -> Int64 {
        guard let value = Int64(text) else { throw ValidationError("'\(text)' is not a number of seconds.") }
        return value
    }

    /// A flag's value, nil when empty.
    private func given(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
}
