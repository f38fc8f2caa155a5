/// One device's part in a traced push: which installation, and how far the push got.
public struct DeviceDelivery: Sendable, Hashable {
    public var messageID: PushMessageID
    public var appID: AppID
    public var installationID: InstallationID
    /// The user or thing the device belongs to.
    public var principal: Principal
    public var mqttTopic: String
    public var state: DeliveryState
    /// Why it failed, when it did.
    public var detail: String?
    /// When the state was reached.
    public var at: UnixMillis

    public init(
        messageID: PushMessageID, appID: AppID, installationID: InstallationID, principal: Principal, mqttTopic: String,
        state: DeliveryState, detail: String? = nil, at: UnixMillis
    ) {
        self.messageID = messageID
        self.appID = appID
        self.installationID = installationID
        self.principal = principal
        self.mqttTopic = mqttTopic
        self.state = state
        self.detail = detail
        self.at = at
    }

    /// The record for the part in message `messageID` (of app `appID`) of the device at
    /// `endpoint`.
    public init(
        messageID: PushMessageID, appID: AppID, endpoint: PushEndpoint, state: DeliveryState, detail: String? = nil,
        at: UnixMillis
    ) {
        self.init(
            messageID: messageID, appID: appID, installationID: endpoint.installationID, principal: endpoint.principal,
            mqttTopic: endpoint.mqttTopic, state: state, detail: detail, at: at)
    }
}
