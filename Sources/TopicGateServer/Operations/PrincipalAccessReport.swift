import TopicGateCore

/// `GET …/principals/{user:ID|thing:ID}/access`: a user's or thing's groups, things or owners,
/// end nodes or gateway, devices with their presence, and the topics it may subscribe to and
/// send on, each with the rule that lets it.
struct PrincipalAccessReport: Encodable, Sendable {
    struct GroupMembership: Encodable, Sendable {
        let groupID: String
        let name: String
        let owner: Bool
    }

    struct Device: Encodable, Sendable {
        let installationID: String
        let deviceType: String
        let mqttTopic: String
        let createdAt: UnixMillis
        let development: Bool
        let online: Bool
        let broker: String?
        let lastSeen: UnixMillis?
        let revokedAt: UnixMillis?
    }

    /// The gateway an end node is attached to, and what it last reported of it.
    struct Gateway: Encodable, Sendable {
        let thingID: String
        let online: Bool?
        let onlineModifiedAt: UnixMillis?
    }

    let principal: String
    let name: String?
    let disabled: Bool
    let kind: String
    let groups: [GroupMembership]
    let ownedThings: [String]
    let owners: [String]
    let endNodes: [EndNode]
    let moreEndNodes: Bool
    let installations: [Device]
    let maySubscribe: [TopicMention]
    let maySend: [TopicMention]
    let layoutPosition: Nullable<String>
    let gateway: Nullable<Gateway>
    let topicsChecked: Int
    let truncated: Bool

    init(_ access: PrincipalInspector.Access) {
        principal = access.principal.description
        name = access.name
        disabled = access.disabled
        kind = access.principal.thingID == nil ? "user" : "thing"
        groups = access.groups.map { group in
            GroupMembership(
                groupID: group.id.rawValue, name: group.name, owner: group.owner == access.principal.userID)
        }
        ownedThings = access.ownedThings.map(\.rawValue)
        owners = access.owners.map(\.description)
        endNodes = access.endNodes
        moreEndNodes = access.moreEndNodes
        installations = access.installations.map { installation, status in
            Device(
                installationID: installation.id.rawValue, deviceType: installation.deviceType,
                mqttTopic: installation.mqttTopic, createdAt: installation.createdAt,
                development: installation.development, online: status.online, broker: installation.broker,
                lastSeen: status.lastSeen, revokedAt: installation.revokedAt)
        }
        maySubscribe = access.maySubscribe.map(TopicMention.init)
        maySend = access.maySend.map(TopicMention.init)
        layoutPosition = Nullable(access.layoutPosition)
        gateway = Nullable(
            access.endNode.map {
                Gateway(thingID: $0.gateway.rawValue, online: $0.online, onlineModifiedAt: $0.onlineModifiedAt)
            })
        topicsChecked = access.topicsChecked
        truncated = access.truncated
    }
}
