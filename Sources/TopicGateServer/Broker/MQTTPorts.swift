/// The four ports an MQTT endpoint names: plain MQTT, MQTT over TLS, over WebSockets and over
/// secure WebSockets; 0 for a transport that is not served.
public struct MQTTPorts: Sendable, Equatable {
    public var tcp: Int
    public var ssl: Int
    public var ws: Int
    public var wss: Int

    public init(tcp: Int, ssl: Int, ws: Int, wss: Int) {
        self.tcp = tcp
        self.ssl = ssl
        self.ws = ws
        self.wss = wss
    }
}
