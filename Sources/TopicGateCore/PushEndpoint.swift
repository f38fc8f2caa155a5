/// Where a push reaches one device: a live `MQTT` installation, by the few fields a delivery
/// needs (a send to 100 000 devices reads, and a gateway keeps, these and not whole
/// installations).
public struct PushEndpoint: Sendable, Hashable {
    public var installationID: InstallationID
    /// The user or thing the device belongs to.
    public var principal: Principal
    /// The device's MQTT topic, which is also its MQTT username.
    public var mqttTopic: String
    /// The broker that serves it, by name; nil: the first one.
    public var broker: String?

    public init(installationID: InstallationID, principal: Principal, mqttTopic: String, broker: String?) {
        self.installationID = installationID
        self.principal = principal
        self.mqttTopic = mqttTopic
        self.broker = broker
    }
}

extension Installation {
    /// Where pushes reach it; nil when it receives none (not `MQTT`, or revoked).
    public var pushEndpoint: PushEndpoint? {
        guard receivesPushes, isLive else { return nil }
        return PushEndpoint(installationID: id, principal: principal, mqttTopic: mqttTopic, broker: broker)
    }
}
