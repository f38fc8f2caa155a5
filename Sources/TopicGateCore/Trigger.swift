/// A Thing-IF trigger: it belongs to the thing whose states it watches (or that its schedule
/// names), and when its predicate holds it sends its command, as its issuer, to its target.
public struct Trigger: Sendable, Hashable, JSONRepresentable {
    public var id: TriggerID
    public var appID: AppID
    /// The thing it belongs to (whose states a STATES trigger watches).
    public var thing: ThingID
    public var predicate: TriggerPredicate
    public var command: TriggerCommand
    public var title: String?
    public var description: String?
    public var metadata: [String: JSONValue]?
    public var disabled: Bool
    /// Why TopicGate disabled it (its issuer could no longer command its target); nil when it
    /// was enabled or disabled by a caller.
    public var disabledReason: String?
    /// A STATES trigger's evaluation of the last state (nil before any state was evaluated).
    public var lastMatched: Bool?
    /// When a timed trigger is next due (nil: never again, or a STATES trigger).
    public var nextDueAt: UnixMillis?
    public var createdAt: UnixMillis
    public var modifiedAt: UnixMillis

    public init(
        id: TriggerID, appID: AppID, thing: ThingID, predicate: TriggerPredicate, command: TriggerCommand,
        title: String? = nil, description: String? = nil, metadata: [String: JSONValue]? = nil, disabled: Bool = false,
        disabledReason: String? = nil, lastMatched: Bool? = nil, nextDueAt: UnixMillis? = nil, createdAt: UnixMillis,
        modifiedAt: UnixMillis
    ) {
        self.id = id
        self.appID = appID
        self.thing = thing
        self.predicate = predicate
        self.command = command
        self.title = title
        self.description = description
        self.metadata = metadata
        self.disabled = disabled
        self.disabledReason = disabledReason
        self.lastMatched = lastMatched
        self.nextDueAt = nextDueAt
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
    }

    /// As `GET …/triggers/{id}` and the list answer it.
    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "triggerID": .string(id.rawValue), "predicate": predicate.json, "triggersWhat": "COMMAND",
            "command": command.json, "disabled": .bool(disabled),
        ]
        if let disabledReason { members["disabledReason"] = .string(disabledReason) }
        if let title { members["title"] = .string(title) }
        if let description { members["description"] = .string(description) }
        if let metadata { members["metadata"] = .object(metadata) }
        return .object(members)
    }

    /// The command it sends when it fires at `now`, as its issuer, carrying `firedByTriggerID`.
    public func firedCommand(id commandID: CommandID, at now: UnixMillis) -> Command {
        var request = command.request
        request.extras["firedByTriggerID"] = .string(id.rawValue)
        return Command(
            id: commandID, appID: appID, thing: command.target, issuer: request.issuer, request: request,
            createdAt: now, modifiedAt: now)
    }
}
