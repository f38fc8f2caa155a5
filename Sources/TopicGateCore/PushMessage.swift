/// An accepted message to a topic, with everything its payload is built from.
public struct PushMessage: Sendable, Hashable {
    public var id: PushMessageID
    public var appID: AppID
    public var topic: TopicAddress
    public var sender: Principal
    public var sentAt: UnixMillis
    public var request: PushMessageRequest

    public init(
        id: PushMessageID, appID: AppID, topic: TopicAddress, sender: Principal, sentAt: UnixMillis,
        request: PushMessageRequest
    ) {
        self.id = id
        self.appID = appID
        self.topic = topic
        self.sender = sender
        self.sentAt = sentAt
        self.request = request
    }

    /// The JSON a device receives over MQTT: the data fields at the first level, then Kii's
    /// fields (`sender`, `topic`, `when`, `objectScope*`, `appID`, `origin`), as the `send*`
    /// flags allow, and always `pushMessageID` so that a client can drop a duplicate.
    public var mqttPayload: JSONValue {
        var members = request.mqttData ?? request.data
        let flags = request.flags
        if flags.contains("sendSender") {
            switch sender {
            case .user(let id): members["sender"] = .string(id.rawValue)
            case .thing(let id): members["sender"] = .string(id.rawValue)
            case .admin, .anonymous: break
            }
        }
        if flags.contains("sendTopicID") { members["topic"] = .string(topic.name.rawValue) }
        if flags.contains("sendWhen") { members["when"] = sentAt.json }
        if flags.contains("sendAppID") { members["appID"] = .string(appID.rawValue) }
        if flags.contains("sendOrigin") { members["origin"] = "EXPLICIT" }
        if flags.contains("sendObjectScope") {
            members["objectScopeAppID"] = .string(appID.rawValue)
            members["objectScopeType"] = .string(topic.scope.kiiType)
            switch topic.scope {
            case .app: break
            case .group(let id): members["objectScopeGroupID"] = .string(id.rawValue)
            case .user(let id): members["objectScopeUserID"] = .string(id.rawValue)
            case .thing(let id): members["objectScopeThingID"] = .string(id.rawValue)
            }
        }
        members["pushMessageID"] = .string(id.rawValue)
        return .object(members)
    }
}
