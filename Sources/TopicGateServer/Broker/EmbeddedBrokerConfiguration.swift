import Foundation

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

    /// The account the broker drops to: Debian's `mosquitto` when the gateway runs as root
    /// (nil: it runs as the gateway's own user, or as root when that account is missing).
    var account: BrokerAccount? {
        geteuid() == 0 ? BrokerAccount.unprivileged(named: EmbeddedBroker.unprivilegedUser) : nil
    }

    /// The folder of the files the broker writes itself (pid file, persistence): `directory`,
    /// unless the broker's account cannot reach it (a data folder under a private parent such as
    /// `/root`); then a folder of its own under `/var/lib/topicgate`.
    public var filesDirectory: String { account?.filesDirectory(for: directory) ?? directory }

    public init(mosquittoPath: String, templatePath: String, pluginPath: String, port: Int, directory: String) {
        self.mosquittoPath = mosquittoPath
        self.templatePath = templatePath
        self.pluginPath = pluginPath
        self.port = port
        self.directory = directory
    }
}
