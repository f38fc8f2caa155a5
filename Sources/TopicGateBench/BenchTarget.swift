import Foundation

/// A gateway and broker that are already running, for `topicgate bench` to measure instead of
/// starting its own. The gateway should run with the abuse limits off (`--signup-limit off`
/// and the rest), or the benchmark meets its own 429s.
public struct BenchTarget: Sendable {
    public var httpHost: String
    public var httpPort: Int
    public var mqttHost: String
    public var mqttPort: Int
    /// The secret the gateway shares with the broker's plugin (raw baselines sign with it).
    public var mqttSecret: String
    public var gatewayUsername: String
    public var appID: String
    public var clientID: String
    public var clientSecret: String
    /// When the processes run on this machine: their memory is reported.
    public var gatewayPID: pid_t?
    public var brokerPID: pid_t?

    public init(
        httpHost: String, httpPort: Int, mqttHost: String, mqttPort: Int, mqttSecret: String, gatewayUsername: String,
        appID: String, clientID: String, clientSecret: String, gatewayPID: pid_t?, brokerPID: pid_t?
    ) {
        self.httpHost = httpHost
        self.httpPort = httpPort
        self.mqttHost = mqttHost
        self.mqttPort = mqttPort
        self.mqttSecret = mqttSecret
        self.gatewayUsername = gatewayUsername
        self.appID = appID
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.gatewayPID = gatewayPID
        self.brokerPID = brokerPID
    }
}
