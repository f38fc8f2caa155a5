import Hummingbird
import NIOCore
import TopicGateCore

/// `GET /openapi.json`: the API as an OpenAPI 3.1 document (open like `/health`).
struct OpenAPIController<Context: RequestContext>: RouteTable {
    static var tag: String { "Operations" }

    static var routes: [APIRoute<Self>] {
        [.get("openapi.json", "This document", on: .open, Self.document)]
    }

    func document(_ request: Request, _ context: Context) async throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: openAPIDocumentBytes))
    }
}

/// The document, written once per process on its first request: it is the same for every
/// router, and writing it costs a debug build a fifth of a second, which a process that builds
/// many routers (the tests build hundreds) must not pay each time.
private let openAPIDocumentBytes = ByteBuffer(bytes: JSONWriter.bytes(OpenAPIDocument.json()))
