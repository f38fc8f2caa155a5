public typealias InstallationID = Identifier<Installation>

/// A device installed for push: bound to the user or thing that installed it, with its own
/// MQTT topic (which is also its MQTT username and client ID).
public struct Installation: Sendable, Hashable {
    public var id: InstallationID
    public var appID: AppID
    /// The user or thing whose messages this device receives.
    public var principal: Principal
    /// `MQTT` (the only type TopicGate delivers to), or `ANDROID`/`IOS`/`JPUSH` kept for SDKs.
    public var deviceType: String
    /// The ID the SDK registered (Kii's `installationRegistrationID`).
    public var registrationID: String
    public var mqttTopic: String
    public var development: Bool
    public var createdAt: UnixMillis
    /// SHA-256 of the token that installed the device; revoking that token revokes the device.
    /// Nil when the admin installed it.
    public var tokenHash: String?
    /// Latest expiry of the MQTT credentials issued for it; the broker must refuse them until
    /// then once the device is revoked.
    public var credentialsExpireAt: UnixSeconds?
    /// When it was revoked; nil while live.
    public var revokedAt: UnixMillis?
    /// The broker that serves it, by name, when the gateways run several; nil: the first one.
    public var broker: String?
    /// When its device was last seen connected, as the broker plugins reported it (recorded in
    /// batches: a few seconds behind).
    public var lastSeenAt: UnixMillis?

    public init(
        id: InstallationID, appID: AppID, principal: Principal, deviceType: String, registrationID: String,
        mqttTopic: String, development: Bool, createdAt: UnixMillis, tokenHash: String?,
        credentialsExpireAt: UnixSeconds? = nil, revokedAt: UnixMillis? = nil, broker: String? = nil,
        lastSeenAt: UnixMillis? = nil
    ) {
        self.lastSeenAt = lastSeenAt
        self.id = id
        self.appID = appID
        self.principal = principal
        self.deviceType = deviceType
        self.registrationID = registrationID
        self.mqttTopic = mqttTopic
        self.development = development
        self.createdAt = createdAt
        self.tokenHash = tokenHash
        self.credentialsExpireAt = credentialsExpireAt
        self.revokedAt = revokedAt
        self.broker = broker
    }

    public var isLive: Bool { revokedAt == nil }

    /// Whether TopicGate delivers pushes to it (an `MQTT` installation).
    public var receivesPushes: Bool { deviceType == "MQTT" }

    /// Device types an installation may have; only `MQTT` receives pushes from TopicGate.
    public static let deviceTypes: Set<String> = ["MQTT", "ANDROID", "IOS", "JPUSH"]
}
