/// How an `MQTTClient` connects.
public struct MQTTClientConfiguration: Sendable {
    public var host: String
    public var port: Int
    public var clientID: String
    public var username: String?
    public var password: String?
    /// False keeps the session (subscriptions and queued QoS 1 messages) across disconnects.
    public var cleanSession: Bool
    public var keepAlive: Int
    /// Delays between reconnect attempts after a lost connection (doubling from min to max).
    public var reconnectDelay: (min: Int, max: Int)
    /// QoS 1 and 2 messages in flight at once before libmosquitto queues further ones.
    public var maxInflightMessages: Int
    /// MQTT over TLS, trusting the certificates in this PEM file; nil: plain TCP unless
    /// `tlsCAPath` is set.
    public var tlsCAFile: String?
    /// MQTT over TLS, trusting the certificates of this folder (OpenSSL's hashed layout, such as
    /// `/etc/ssl/certs`).
    public var tlsCAPath: String?
    /// A client certificate (PEM) and its key, for a broker that asks for one.
    public var tlsCertificateFile: String?
    public var tlsKeyFile: String?
    /// Called before every connect and reconnect when set: its answer replaces `password`, so
    /// that a short-lived password is signed anew for each CONNECT.
    public var renewPassword: (@Sendable () -> String)?

    /// True when the client speaks TLS.
    var usesTLS: Bool { tlsCAFile != nil || tlsCAPath != nil }

    public init(
        host: String, port: Int, clientID: String, username: String? = nil, password: String? = nil,
        cleanSession: Bool = true, keepAlive: Int = 30, reconnectDelay: (min: Int, max: Int) = (1, 8),
        maxInflightMessages: Int = 100
    ) {
        self.host = host
        self.port = port
        self.clientID = clientID
        self.username = username
        self.password = password
        self.cleanSession = cleanSession
        self.keepAlive = keepAlive
        self.reconnectDelay = reconnectDelay
        self.maxInflightMessages = maxInflightMessages
    }
}
