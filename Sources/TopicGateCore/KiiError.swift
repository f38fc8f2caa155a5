/// An error as Kii reports it: a code from Kii's table, a human message, and context fields
/// that go into the body beside them (`{"errorCode": …, "message": …, …context}`).
///
/// The core knows nothing of HTTP; the server maps each code to its status.
public struct KiiError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An error code of Kii's table, extensible by the codes of this project.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }

    public var code: Code
    public var message: String
    public var context: [String: JSONValue]

    public init(_ code: Code, _ message: String, context: [String: JSONValue] = [:]) {
        self.code = code
        self.message = message
        self.context = context
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// The JSON body: context first, then `errorCode` and `message`, which always win.
    public var body: JSONValue {
        var members = context
        members["errorCode"] = .string(code.rawValue)
        members["message"] = .string(message)
        return .object(members)
    }
}
