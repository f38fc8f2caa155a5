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
        var headers = extra
        headers[.contentType] = mediaType + ";charset=UTF-8"
        return Response(
            status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONWriter.bytes(body))))
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
    /// name order (the same bytes for the same answer).
    static func make(
        status: HTTPResponse.Status, encoding body: some Encodable, mediaType: String = "application/json",
        headers extra: HTTPFields = [:]
    ) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var headers = extra
        headers[.contentType] = mediaType + ";charset=UTF-8"
        return Response(
            status: status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(body))))
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

extension JSONResponse {
    /// One page of a listing under `key`, with `nextPaginationKey` (the last row's key) when
    /// the page is full.
    static func page(_ key: String, _ rows: [(sequence: Int64, json: JSONValue)], limit: Int) -> Response {
        var body: [String: JSONValue] = [key: .array(rows.map(\.json))]
        if rows.count == limit, let last = rows.last { body["nextPaginationKey"] = .string(String(last.sequence)) }
        return ok(.object(body))
    }
}
