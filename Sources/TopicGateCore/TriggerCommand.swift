/// The command a trigger sends when it fires (Thing-IF's `command` in a trigger): the thing it
/// targets (the watched thing when the request names none), the issuer it is sent as, and the
/// command body (actions in trait or schema form, title, description, metadata).
public struct TriggerCommand: Sendable, Hashable {
    public var target: ThingID
    public var request: CommandRequest

    public init(target: ThingID, request: CommandRequest) {
        self.target = target
        self.request = request
    }

    /// Reads `command` from a trigger body; `target` defaults to `watched`. `WRONG_TRIGGER` for a
    /// target that is not `thing:<id>`; the command body's own errors as a command's.
    public init(json: JSONValue, watched: ThingID) throws(KiiError) {
        guard var body = json.objectValue else {
            throw KiiError(.wrongTrigger, "A trigger's 'command' is an object.", context: ["field": "command"])
        }
        var target = watched
        if let named = body.removeValue(forKey: "target"), !named.isNull {
            guard let text = named.stringValue, let colon = text.firstIndex(of: ":"),
                text[..<colon].lowercased() == "thing", IDSyntax.isWellFormed(text[text.index(after: colon)...])
            else {
                throw KiiError(
                    .wrongTrigger, "A trigger's command targets a thing: 'thing:<thingID>'.",
                    context: ["field": "target"])
            }
            target = ThingID(String(text[text.index(after: colon)...]))
        }
        body.removeValue(forKey: "firedByTriggerID")
        self.init(target: target, request: try CommandRequest(body: body))
    }

    /// As a trigger answers it: no command ID, state or times (those are a fired command's).
    public var json: JSONValue {
        var members = request.members
        members["target"] = .string("thing:\(target.rawValue)")
        members["issuer"] = .string(request.issuer.description)
        return .object(members)
    }
}
