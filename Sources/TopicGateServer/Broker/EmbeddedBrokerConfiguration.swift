/// The Mosquitto child process of `topicgate serve`.
public struct EmbeddedBrokerConfiguration: Sendable {
    /// The `mosquitto` executable.
    public var mosquittoPath: String
    /// `broker-config/mosquitto.conf`, the template of the generated configuration.
    public var templatePath: String
    /// `libTopicGateMosquittoAuth.so`.
    public var pluginPath: String
    /// The loopback port it listens on.
    public var port: Int
    /// Its folder: generated configuration, persistence, log, pid file.
    public var directory: String

    public init(mosquittoPath: String, templatePath: String, pluginPath: String, port: Int, directory: String) {
        self.mosquittoPath = mosquittoPath
        self.templatePath = templatePath
        self.pluginPath = pluginPath
        self.port = port
        self.directory = directory
    }
}
