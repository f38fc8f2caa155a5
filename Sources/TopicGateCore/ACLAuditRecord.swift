/// One line of a topic's ACL audit trail: who changed what, when, and the entries before and
/// after the change.
public struct ACLAuditRecord: Sendable, Hashable, JSONRepresentable {
    public var at: UnixMillis
    public var actor: Principal
    public var change: ACLChange
    public var before: [String]
    public var after: [String]

    public init(at: UnixMillis, actor: Principal, change: ACLChange, before: [String], after: [String]) {
        self.at = at
        self.actor = actor
        self.change = change
        self.before = before
        self.after = after
    }

    public var json: JSONValue {
        [
            "at": at.json, "actor": .string(actor.description), "change": .string(change.kind.rawValue),
            "action": .string(change.entry.action.rawValue), "subject": .string(change.entry.subject.description),
            "before": .array(before.map(JSONValue.string)), "after": .array(after.map(JSONValue.string)),
        ]
    }
}
