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
    }

    public var broker: Broker
    /// The file holding the secret that signs MQTT passwords (created on first start).
    public var secretFile: String
    /// The gateway's MQTT account, the plugin's only superuser.
    public var gatewayUsername: String
    /// The host devices are told to connect to.
    public var advertisedHost: String
    /// Ports devices are told; TCP is the broker's, the others are for a TLS/WebSocket front.
    public var portTCP: Int
    public var portSSL: Int
    public var portWS: Int
    public var portWSS: Int
    /// Seconds an MQTT password stays valid (`X-MQTT-TTL`).
    public var credentialTTL: Int64
    /// How device passwords are written: compact (default, fits every Kii SDK) or JWT.
    public var credentialForm: MQTTCredentialForm = .compact
    /// The broker's `max_packet_size` (the embedded broker is started with it): sends and
    /// commands whose payload would not fit are refused when they are made.
    public var maximumPacketSize: Int = 262_144

    /// What the broker's packet limit leaves for one push's payload.
    public var sizeLimit: PushSizeLimit { PushSizeLimit(maximumPacketSize: maximumPacketSize) }

    public init(
        broker: Broker, secretFile: String, gatewayUsername: String = "topicgate", advertisedHost: String,
        portTCP: Int? = nil, portSSL: Int = 8883, portWS: Int = 12470, portWSS: Int = 12473,
        credentialTTL: Int64 = 30 * 24 * 3600
    ) {
        self.broker = broker
        self.secretFile = secretFile
        self.gatewayUsername = gatewayUsername
        self.advertisedHost = advertisedHost
        self.portTCP = portTCP ?? broker.port
        self.portSSL = portSSL
        self.portWS = portWS
        self.portWSS = portWSS
        self.credentialTTL = credentialTTL
    }
}

extension PushConfiguration.Broker {
    /// Where the gateway connects.
    public var host: String {
        switch self {
        case .embedded: "127.0.0.1"
        case .external(let host, _): host
        }
    }

    public var port: Int {
        switch self {
        case .embedded(let embedded): embedded.port
        case .external(_, let port): port
        }
    }
}
