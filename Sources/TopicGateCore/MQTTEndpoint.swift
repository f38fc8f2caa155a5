/// Where and how a device connects for push, as `GET …/mqtt-endpoint` answers it.
public struct MQTTEndpoint: Sendable, Hashable, JSONRepresentable {
    public var installationID: InstallationID
    public var username: String
    public var password: String
    public var mqttTopic: String
    public var host: String
    public var portTCP: Int
    public var portSSL: Int
    public var portWS: Int
    public var portWSS: Int
    /// How long the credentials stay valid (`X-MQTT-TTL`, whole seconds on the wire).
    public var ttl: Duration

    public init(
        installationID: InstallationID, username: String, password: String, mqttTopic: String, host: String,
        portTCP: Int, portSSL: Int, portWS: Int, portWSS: Int, ttl: Duration
    ) {
        self.installationID = installationID
        self.username = username
        self.password = password
        self.mqttTopic = mqttTopic
        self.host = host
        self.portTCP = portTCP
        self.portSSL = portSSL
        self.portWS = portWS
        self.portWSS = portWSS
        self.ttl = ttl
    }

    /// Kii's `MQTTEndpointResponse` body; `X-MQTT-TTL` is also a field (ebisu reads it there).
    public var json: JSONValue {
        .object([
            "installationID": .string(installationID.rawValue),
            "username": .string(username),
            "password": .string(password),
            "mqttTopic": .string(mqttTopic),
            "host": .string(host),
            "portTCP": .int(Int64(portTCP)),
            "portSSL": .int(Int64(portSSL)),
            "portWS": .int(Int64(portWS)),
            "portWSS": .int(Int64(portWSS)),
            "X-MQTT-TTL": .int(ttl.components.seconds),
        ])
    }
}
