import Hummingbird
import NIOCore
import TopicGateCore

/// `GET /openapi.json`: the API as an OpenAPI 3.1 document (open like `/health`).
struct OpenAPIController<Context: RequestContext>: Sendable {
    /// Built once, when the router is.
    let document = ByteBuffer(bytes: JSONWriter.bytes(OpenAPIDocument.json()))

    func addRoutes(to router: Router<Context>) {
        let document = document
        router.get("openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: document))
        }
    }
}
