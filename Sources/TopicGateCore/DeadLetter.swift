/// An accepted push that could not be delivered: the broker refused it, or it failed
/// `PushPipeline.deadLetterAfter` times on its own. It leaves the outbox so that the
/// messages behind it flow on, and stays here for the admin to read.
public struct DeadLetter: Sendable, Hashable, JSONRepresentable {
    public var message: OutboxMessage
    public var failedAt: UnixMillis
    public var reason: String

    public init(message: OutboxMessage, failedAt: UnixMillis, reason: String) {
        self.message = message
        self.failedAt = failedAt
        self.reason = reason
    }

    /// As the admin API lists it (the payload's size, not its bytes).
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "pushMessageID": .string(message.id.rawValue), "appID": .string(message.appID.rawValue),
            "recipients": .array(message.recipients.map { .string($0.description) }),
            "acceptedAt": message.acceptedAt.json, "failedAt": failedAt.json,
            "attempts": .int(Int64(message.attempts)),
            "payloadBytes": .int(Int64(message.payload.count)), "reason": .string(reason),
        ]
        if let commandID = message.commandID { object["commandID"] = .string(commandID.rawValue) }
        return .object(object)
    }
}
