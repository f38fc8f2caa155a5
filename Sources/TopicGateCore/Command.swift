/// A Thing-IF command: what an owner asked a thing to do, and what the thing reported.
public struct Command: Sendable, Hashable, JSONRepresentable {
    public var id: CommandID
    public var appID: AppID
    public var thing: ThingID
    /// The owner the command was issued as (`user:U`, or `group:G` by a member of G).
    public var issuer: Owner
    public var request: CommandRequest
    /// The thing's `actionResults`, once reported.
    public var actionResults: JSONValue?
    public var state: CommandState
    public var createdAt: UnixMillis
    public var modifiedAt: UnixMillis
    /// When a broker first took the command for a device of its thing (or of the gateway that
    /// relays for it): published, not that a device received it. Nil before.
    public var publishedAt: UnixMillis?

    public init(
        id: CommandID, appID: AppID, thing: ThingID, issuer: Owner, request: CommandRequest,
        actionResults: JSONValue? = nil,
        state: CommandState = .sending, createdAt: UnixMillis, modifiedAt: UnixMillis, publishedAt: UnixMillis? = nil
    ) {
        self.id = id
        self.appID = appID
        self.thing = thing
        self.issuer = issuer
        self.request = request
        self.actionResults = actionResults
        self.state = state
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.publishedAt = publishedAt
    }

    /// The command as `GET …/commands/{id}` answers it (TIF-JS `jsonToCommand` needs
    /// `target`, `issuer` and `actions`); `publishedAt` is TopicGate's own (SDKs ignore it).
    public var json: JSONValue {
        var members = request.members
        members["commandID"] = .string(id.rawValue)
        members["target"] = .string("thing:\(thing.rawValue)")
        members["issuer"] = .string(issuer.description)
        members["commandState"] = .string(state.rawValue)
        members["createdAt"] = createdAt.json
        members["modifiedAt"] = modifiedAt.json
        if let actionResults { members["actionResults"] = actionResults }
        if let publishedAt { members["publishedAt"] = publishedAt.json }
        return .object(members)
    }

    /// What the thing receives on its MQTT topic: the command JSON (`commandID`, `actions`,
    /// `issuer`, …; SDK parsers read `commandID` and `actions` and ignore the rest).
    public var thingPayload: JSONValue {
        var members = request.members
        members["commandID"] = .string(id.rawValue)
        members["target"] = .string("thing:\(thing.rawValue)")
        members["issuer"] = .string(issuer.description)
        return .object(members)
    }

    /// What a gateway receives on its MQTT topic for a command to its end node: the command JSON
    /// (its `target` the end node) and the end node's IDs, since gateway agents address their
    /// end nodes by vendor thing ID.
    public func gatewayPayload(endNodeVendorThingID: String) -> JSONValue {
        var members = thingPayload.objectValue ?? [:]
        members["endNodeThingID"] = .string(thing.rawValue)
        members["endNodeVendorThingID"] = .string(endNodeVendorThingID)
        return .object(members)
    }

    /// What the issuer's devices receive when the results are in: the command ID and nothing
    /// of the actions (Kii's direct push "only the command ID will be notified").
    public static func resultPayload(_ id: CommandID, pushMessageID: PushMessageID, at now: UnixMillis) -> JSONValue {
        .object([
            "commandID": .string(id.rawValue),
            "pushMessageID": .string(pushMessageID.rawValue),
            "when": now.json,
        ])
    }
}
