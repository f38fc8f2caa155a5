/// Where devices connect for push besides the broker's plain MQTT port: MQTT over TLS (the
/// embedded broker's own TLS listener), and MQTT over WebSockets (plain and TLS), which the
/// gateway serves itself and relays to the broker.
///
/// Why the gateway relays WebSockets: Debian's Mosquitto 2.0.11 binds a WebSockets listener
/// on every interface whatever address it is given, so a broker WebSockets listener would
/// break the loopback-only default. The relay listens exactly on `host`, and the broker sees a
/// plain MQTT connection from the gateway's machine, so its plugin applies the same rules to
/// it as to any device.
public struct DeviceListeners: Sendable, Equatable {
    /// The address the embedded broker's listeners and the WebSockets relay bind to
    /// (`--mqtt-host`; 127.0.0.1 keeps them to this machine, 0.0.0.0 opens them to every interface).
    public var host: String
    /// MQTT over TLS on the embedded broker; used only with `tls`; nil turns it off.
    public var tlsPort: Int?
    /// MQTT over WebSockets, relayed by the gateway; nil turns it off.
    public var webSocketPort: Int?
    /// MQTT over secure WebSockets, relayed by the gateway; used only with `tls`; nil turns it off.
    public var secureWebSocketPort: Int?
    /// The certificate and key of the TLS listeners; nil: no TLS listener runs.
    public var tls: TLSFiles?

    public init(
        host: String = "127.0.0.1", tlsPort: Int? = 8883, webSocketPort: Int? = 12470,
        secureWebSocketPort: Int? = 12473,
        tls: TLSFiles? = nil
    ) {
        self.host = host
        self.tlsPort = tlsPort
        self.webSocketPort = webSocketPort
        self.secureWebSocketPort = secureWebSocketPort
        self.tls = tls
    }

    /// True when `host` is every interface rather than one address.
    public var listensEverywhere: Bool { ["0.0.0.0", "::", "*", ""].contains(host) }

    /// The address to reach these listeners from this machine.
    public var localHost: String { listensEverywhere ? "127.0.0.1" : host }
}
