/// One state a thing reported: the JSON object as sent, and when (ms); for a trait thing, the
/// state of one trait alias.
public struct ThingStateRecord: Sendable, Hashable {
    public var state: [String: JSONValue]
    public var recordedAt: UnixMillis
    /// The trait alias this is the state of; nil for a thing that reports without traits.
    public var alias: String?

    public init(state: [String: JSONValue], recordedAt: UnixMillis, alias: String? = nil) {
        self.state = state
        self.recordedAt = recordedAt
        self.alias = alias
    }

    /// As the history lists it: a trait alias's state under its alias.
    public var listedState: [String: JSONValue] { alias.map { [$0: .object(state)] } ?? state }

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
