/// A thing that reaches the cloud through a gateway (Thing-IF's end node): which gateway it is
/// attached to, and whether that gateway last reported it online.
public struct EndNode: Sendable, Hashable, JSONRepresentable {
    public var id: ThingID
    public var vendorThingID: String
    public var gateway: ThingID
    public var addedAt: UnixMillis
    /// What the gateway last reported (`PUT …/end-nodes/{id}/connection`); nil before any report.
    public var online: Bool?
    public var onlineModifiedAt: UnixMillis?

    public init(
        id: ThingID, vendorThingID: String, gateway: ThingID, addedAt: UnixMillis, online: Bool? = nil,
        onlineModifiedAt: UnixMillis? = nil
    ) {
        self.id = id
        self.vendorThingID = vendorThingID
        self.gateway = gateway
        self.addedAt = addedAt
        self.online = online
        self.onlineModifiedAt = onlineModifiedAt
    }

    /// One entry of a gateway's end-node list, as Kii lists them.
    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "thingID": .string(id.rawValue), "vendorThingID": .string(vendorThingID),
        ]
        if let online { members["online"] = .bool(online) }
        return .object(members)
    }
}
