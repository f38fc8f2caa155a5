import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TopicGateCore

/// Builds responses with JSON bodies: a `JSONValue` written by `JSONWriter` (so never a stray
/// `%`), or a typed body.
enum JSONResponse {
    static func make(
        status: HTTPResponse.Status, body: JSONValue, mediaType: String = "application/json",
        headers extra: HTTPFields = [:]
    ) -> Response {
        make(status: status, json: JSONWriter.bytes(body), mediaType: mediaType, headers: extra)
    }

    /// `status` with JSON text already written.
    static func make(
        status: HTTPResponse.Status, json: [UInt8], mediaType: String = "application/json",
        headers extra: HTTPFields = [:]
    ) -> Response {
        var headers = extra
        headers[.contentType] = mediaType + ";charset=UTF-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: json)))
    }

    /// 200 with `body`.
    static func ok(_ body: JSONValue, mediaType: String = "application/json") -> Response {
        make(status: .ok, body: body, mediaType: mediaType)
    }

    /// 201 with `body`.
    static func created(_ body: JSONValue, mediaType: String = "application/json", location: String? = nil) -> Response
    {
        var headers: HTTPFields = [:]
        if let location { headers[.location] = location }
        return make(status: .created, body: body, mediaType: mediaType, headers: headers)
    }

    /// `status` with a typed body, written as its `Encodable` conformance says, its members in
    /// name order (the same bytes for the same answer) and `%` escaped as `JSONWriter` does.
    static func make(
        status: HTTPResponse.Status, encoding body: some Encodable, mediaType: String = "application/json",
        headers extra: HTTPFields = [:]
    ) throws -> Response {
        make(status: status, json: try bytes(body), mediaType: mediaType, headers: extra)
    }

    /// `body` as JSON text, its members in name order and `%` escaped. A value that says its
    /// own JSON form (`JSONRepresentable`) is written by `JSONWriter`, with no encoder between:
    /// a third of the time for the send's and the command's answers.
    static func bytes(_ body: some Encodable) throws -> [UInt8] {
        if let representable = body as? any JSONRepresentable { return JSONWriter.bytes(representable.json) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return percentEscaped(try encoder.encode(body))
    }

    /// `%` only ever stands inside a string of JSON text, where `\u0025` says the same.
    static func percentEscaped(_ json: Data) -> [UInt8] {
        guard json.contains(UInt8(ascii: "%")) else { return Array(json) }
        var out: [UInt8] = []
        out.reserveCapacity(json.count)
        for byte in json {
            if byte == UInt8(ascii: "%") {
                out.append(contentsOf: #"\u0025"#.utf8)
            } else {
                out.append(byte)
            }
        }
        return out
    }

    /// 201 with a typed body, and where the created resource is.
    static func created(encoding body: some Encodable, mediaType: String, location: String) throws -> Response {
        try make(status: .created, encoding: body, mediaType: mediaType, headers: [.location: location])
    }

    /// 200 with a typed body.
    static func ok(encoding body: some Encodable, mediaType: String = "application/json") throws -> Response {
        try make(status: .ok, encoding: body, mediaType: mediaType)
    }

    /// 204 with no body.
    static func noContent() -> Response { Response(status: .noContent) }
}
