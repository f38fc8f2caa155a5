/// One state a thing reported: the JSON object as sent, and when (ms).
public struct ThingStateRecord: Sendable, Hashable {
    public var state: [String: JSONValue]
    public var recordedAt: Int64

    public init(state: [String: JSONValue], recordedAt: Int64) {
        self.state = state
        self.recordedAt = recordedAt
    }

    /// Validates a reported state: a non-empty JSON object (`EMPTY_BODY` otherwise).
    public static func validate(_ value: JSONValue?) throws(KiiError) -> [String: JSONValue] {
        guard let value else { throw KiiError(.emptyBody, "The state is empty.") }
        guard let object = value.objectValue else {
            throw KiiError.invalidInput("A state is a JSON object.", field: "state")
        }
        guard !object.isEmpty else { throw KiiError(.emptyBody, "The state is empty.") }
        return object
    }
}
