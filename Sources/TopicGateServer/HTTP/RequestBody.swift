import Foundation
import Hummingbird
import NIOCore
import TopicGateCore

/// Reading request bodies the way Kii's SDKs send them.
struct RequestBody: Sendable {
    let maximumSize: Int

    /// The raw body, refused past `maximumSize`.
    func bytes(_ request: Request) async throws -> [UInt8] {
        var request = request
        let buffer = try await request.collectBody(upTo: maximumSize)
        return Array(buffer.readableBytesView)
    }

    /// The body as a JSON object; `INVALID_JSON` / `INVALID_INPUT_DATA` otherwise. An empty
    /// body is an empty object when `emptyAllowed`.
    func object(_ request: Request, emptyAllowed: Bool = false) async throws -> [String: JSONValue] {
        let bytes = try await bytes(request)
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            guard emptyAllowed else { throw KiiError(.invalidInputData, "The request body must not be empty.") }
            return [:]
        }
        return try JSONReader.object(bytes)
    }

    /// The body parsed into the typed request a service takes.
    func decode<Body: JSONRequestBody>(
        _ type: Body.Type, from request: Request, emptyAllowed: Bool = false
    ) async throws -> Body {
        try Body(body: try await object(request, emptyAllowed: emptyAllowed))
    }

    /// The body as a form (`application/x-www-form-urlencoded`) or JSON object, by its type.
    func formOrObject(_ request: Request) async throws -> [String: JSONValue] {
        guard MediaTypeName(request).contains("x-www-form-urlencoded") else { return try await object(request) }
        let text = String(decoding: try await bytes(request), as: UTF8.self)
        var members: [String: JSONValue] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
            }
            members[decode(parts[0])] = .string(parts.count > 1 ? decode(parts[1]) : "")
        }
        return members
    }
}
