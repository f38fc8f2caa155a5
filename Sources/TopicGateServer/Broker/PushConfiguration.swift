public import MQTTBridge
public import TopicGateCore

/// How the gateway reaches devices: which broker, the secret it shares with the broker's
/// plugin, and what `mqtt-endpoint` tells devices.
public struct PushConfiguration: Sendable {
    /// Where the broker runs.
    public enum Broker: Sendable {
        /// A Mosquitto child process that `topicgate serve` starts, watches and stops.
        case embedded(EmbeddedBrokerConfiguration)
        /// A broker that runs on its own (it must load TopicGate's plugin with the same secret).
        case external(host: String, port: Int)
        /// Several brokers that run on their own, each serving the devices assigned to it.
        case several([BrokerAddress])
    }

    public var broker: Broker
    /// The file holding the secret that signs MQTT passwords (created on first start).
    public var secretFile: String
    /// The gateway's MQTT account, the plugin's only superuser.
    public var gatewayUsername: String
    /// The host devices are told to connect to.
    public var advertisedHost: String
    /// Where devices connect besides the broker's plain port: TLS, WebSockets, secure WebSockets.
    public var listeners = DeviceListeners()
    /// Ports devices are told when they differ from where TopicGate listens (a proxy or NAT in
    /// front, or an external broker's own TLS and WebSockets listeners).
    public var publicPorts: MQTTPorts?
    /// How long an MQTT password stays valid (`X-MQTT-TTL`, in whole seconds).
    public var credentialTTL: Duration
    /// How device passwords are written: compact (default, fits every Kii SDK) or JWT.
    public var credentialForm: MQTTCredentialForm = .compact
    /// TLS to the brokers (given as `mqtts://`); nil: plain MQTT.
    public var brokerTLS: BrokerTLS?
    /// How long the gateway's own MQTT password lives: it is signed anew before every
    /// (re)connect, so a password seen on the wire is worthless after this.
    public var gatewayPasswordLifetime: Duration = .seconds(3600)
    /// The broker's `max_packet_size` (the embedded broker is started with it): sends and
    /// commands whose payload would not fit are refused when they are made.
    public var maximumPacketSize: Int = 262_144
    /// How long a device may stay away and still get what was sent meanwhile.
    public var life = PushLife.default

    /// What the broker's packet limit leaves for one push's payload.
    public var sizeLimit: PushSizeLimit { PushSizeLimit(maximumPacketSize: maximumPacketSize) }

    public init(
        broker: Broker, secretFile: String, gatewayUsername: String = "topicgate", advertisedHost: String,
        credentialTTL: Duration = .days(30)
    ) {
        self.broker = broker
        self.secretFile = secretFile
        self.gatewayUsername = gatewayUsername
        self.advertisedHost = advertisedHost
        self.credentialTTL = credentialTTL
    }
}

extension PushConfiguration {
    /// The ports `mqtt-endpoint` tells devices: `publicPorts` when given; otherwise the
    /// broker's plain port and, for each other transport, its port when something listens
    /// there and 0 when nothing does (no TLS files: no TLS and no WSS; `--mqtt-ws-port 0`: no
    /// WebSockets; `--mqtt-tls-port 0`, `--mqtt-wss-port 0`: that one off). An endpoint never names a port on which nothing listens.
    public var advertisedPorts: MQTTPorts {
        if let publicPorts { return publicPorts }
        let tls = listeners.tls != nil
        let embedded = if case .embedded = broker { true } else { false }
        return MQTTPorts(
            tcp: broker.port, ssl: tls && embedded ? listeners.tlsPort ?? 0 : 0,
            ws: relaysWebSockets ? listeners.webSocketPort ?? 0 : 0,
            wss: tls && relaysWebSockets ? listeners.secureWebSocketPort ?? 0 : 0)
    }
}

extension PushConfiguration {
    /// Where the gateway (and its WebSockets relay) reach the broker: the embedded broker's
    /// plain listener is on `listeners.host`.
    public var brokerHost: String {
        switch broker {
        case .embedded: listeners.localHost
        case .external(let host, _): host
        case .several(let brokers): brokers[0].host
        }
    }

    /// True when the gateway relays MQTT over WebSockets to its broker: with one broker only
    /// (with several, a relay could not know which one serves the device; each broker serves
    /// its own WebSockets listener, named in its endpoint), reached in plain MQTT (a broker
    /// reached over TLS serves its own WebSockets too).
    public var relaysWebSockets: Bool {
        if case .several = broker { return false }
        if brokerTLS != nil { return false }
        return listeners.webSocketPort != nil
    }

    /// The brokers devices are spread over: the one broker, or each of several.
    public var brokers: [BrokerAddress] {
        if case .several(let brokers) = broker { return brokers }
        return [
            BrokerAddress(
                name: "\(brokerHost):\(broker.port)", host: brokerHost, port: broker.port, publicHost: advertisedHost,
                publicPorts: advertisedPorts)
        ]
    }
}

extension PushConfiguration.Broker {
    public var port: Int {
        switch self {
        case .embedded(let embedded): embedded.port
        case .external(_, let port): port
        case .several(let brokers): brokers[0].port
        }
    }
}
