public import TopicGateCore

/// One broker of several that devices are spread over: where the gateways reach it, and
/// what `mqtt-endpoint` tells the devices it serves.
public struct BrokerAddress: Sendable, Equatable {
    /// Its name in the store (an installation names the broker that serves it): keep it when
    /// the broker's address changes.
    public var name: String
    /// Where the gateways connect to it.
    public var host: String
    public var port: Int
    /// The host devices are told.
    public var publicHost: String
    /// The ports devices are told (0 for a transport this broker does not serve).
    public var publicPorts: MQTTPorts

    public init(name: String, host: String, port: Int, publicHost: String, publicPorts: MQTTPorts) {
        self.name = name
        self.host = host
        self.port = port
        self.publicHost = publicHost
        self.publicPorts = publicPorts
    }
}
