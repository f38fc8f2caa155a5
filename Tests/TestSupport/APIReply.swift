import HTTPTypes
import TopicGateCore

/// A response of the API, in-process or over a socket: its status, headers and body, and the
/// body read as JSON.
public struct APIReply: Sendable {
    public let status: HTTPResponse.Status
    public let headers: HTTPFields
    public let body: [UInt8]

    public init(status: HTTPResponse.Status, headers: HTTPFields, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
    public var json: JSONValue? { try? JSONReader.value(body) }
    /// The body's JSON object (empty when the body is none).
    public var object: [String: JSONValue] { json?.objectValue ?? [:] }

    public func string(_ key: String) -> String? { object[key]?.stringValue }

    /// The `errorCode` of an error body.
    public var errorCode: String? { string("errorCode") }

    /// `key` of the body, or a failure that shows the reply.
    public func require(_ key: String) throws -> String {
        guard let value = string(key) else { throw TestFailure("no '\(key)' in \(status.code) \(text)") }
        return value
    }

    /// This reply when its status is `expected`, or a failure that shows it.
    @discardableResult
    public func expect(_ expected: HTTPResponse.Status) throws -> APIReply {
        guard status == expected else { throw TestFailure("expected \(expected.code), got \(status.code) \(text)") }
        return self
    }
}
