/// A trigger's creation (`POST …/triggers`) or change (`PATCH …/triggers/{id}`, any subset of
/// the members; those not sent keep their values). `triggersWhat` is `COMMAND` (present or
/// not); `SERVER_CODE` and `serverCode` are refused with `400 WRONG_TRIGGER`: TopicGate runs no
/// server code. `title` ≤ 50 characters, `description` ≤ 200, `metadata` an object.
public struct TriggerRequest: Sendable, Hashable {
    public var predicate: TriggerPredicate?
    /// The `command` member as sent (read against the trigger's thing by `TriggerCommand`).
    public var command: JSONValue?
    /// Each: absent (nil), or set (an explicit null clears it).
    public var title: String??
    public var description: String??
    public var metadata: [String: JSONValue]??

    public init(body: [String: JSONValue], creating: Bool) throws(KiiError) {
        if let what = body["triggersWhat"], !what.isNull {
            guard what.stringValue == "COMMAND" else {
                throw KiiError(
                    .wrongTrigger,
                    "TopicGate runs no server code: a trigger's 'triggersWhat' is COMMAND, not \(what.stringValue ?? "that").",
                    context: ["field": "triggersWhat"])
            }
        }
        if let code = body["serverCode"], !code.isNull {
            throw KiiError(
                .wrongTrigger, "TopicGate runs no server code: a trigger sends a 'command'.",
                context: ["field": "serverCode"])
        }
        if let predicate = body["predicate"], !predicate.isNull {
            self.predicate = try TriggerPredicate(json: predicate)
        }
        if let command = body["command"], !command.isNull { self.command = command }
        if creating {
            guard predicate != nil else {
                throw KiiError(.wrongTrigger, "A trigger has a 'predicate'.", context: ["field": "predicate"])
            }
            guard command != nil else {
                throw KiiError(.wrongTrigger, "A trigger has a 'command'.", context: ["field": "command"])
            }
        }
        title = try Self.text(body, "title", at: 50)
        description = try Self.text(body, "description", at: 200)
        if let value = body["metadata"] {
            if value.isNull {
                metadata = .some(nil)
            } else {
                guard let object = value.objectValue else {
                    throw KiiError.invalidInput("'metadata' must be an object.", field: "metadata")
                }
                metadata = .some(object)
            }
        }
    }

    static func text(_ body: [String: JSONValue], _ key: String, at most: Int) throws(KiiError) -> String?? {
        guard let value = body[key] else { return nil }
        if value.isNull { return .some(nil) }
        guard let text = value.stringValue, text.count <= most else {
            throw KiiError.invalidInput("'\(key)' must be a string of at most \(most) characters.", field: key)
        }
        return .some(text)
    }
}
