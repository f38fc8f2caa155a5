import Foundation
import TopicGateCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One JSON request to a TopicGate (or Kii) server: the status and the body as JSON (null when
/// empty or not JSON). Shared by the operator commands and the emulators.
enum KiiHTTP {
    static func send(
        server: URL, _ method: String, _ path: String, token: String?, body: JSONValue?,
        contentType: String = "application/json"
    ) async throws -> (status: Int, body: JSONValue) {
        guard let url = URL(string: path, relativeTo: server) else {
            throw KiiHTTPError(status: 0, code: "BAD_PATH", message: path)
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(JSONWriter.bytes(body))
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let reply = data.isEmpty ? JSONValue.null : (try? JSONReader.value(Array(data))) ?? .null
        return (status, reply)
    }

    /// Like `send`, but a 4xx/5xx answer is thrown as its `errorCode` and `message`.
    static func call(
        server: URL, _ method: String, _ path: String, token: String?, body: JSONValue? = nil,
        contentType: String = "application/json"
    ) async throws -> JSONValue {
        let (status, reply) = try await send(
            server: server, method, path, token: token, body: body, contentType: contentType)
        guard (200..<300).contains(status) else { throw KiiHTTPError(status: status, reply: reply) }
        return reply
    }
}

/// A refusal from the server, printed as `errorCode (status): message`.
struct KiiHTTPError: Error, CustomStringConvertible {
    let status: Int
    let code: String
    let message: String

    init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    init(status: Int, reply: JSONValue) {
        let object = reply.objectValue ?? [:]
        self.init(
            status: status, code: object["errorCode"]?.stringValue ?? "HTTP_\(status)",
            message: object["message"]?.stringValue ?? object["error_description"]?.stringValue ?? "")
    }

    var description: String { "\(code) (\(status)): \(message)" }
}
