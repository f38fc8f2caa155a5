import HTTPTypes
import Hummingbird
import TopicGateCore

/// One route as a controller declares it: where it hangs, its path, what the OpenAPI document
/// says of it, and the controller's method that answers it. The router and the document read
/// the same declaration.
struct APIRoute<Controller: RouteTable>: Sendable {
    typealias Handler = @Sendable (Controller) -> @Sendable (Request, Controller.Context) async throws -> Response

    let root: APIRoot
    let method: HTTPRequest.Method
    /// The path below the root, in OpenAPI form (`groups/{group}`).
    let path: String
    let operation: APIOperation
    let handler: Handler

    /// The path as Hummingbird matches it (`groups/:group`).
    var routerPath: RouterPath {
        RouterPath(
            path.split(separator: "/", omittingEmptySubsequences: false).map { part in
                part.hasPrefix("{") && part.hasSuffix("}") ? ":" + part.dropFirst().dropLast() : part
            }.joined(separator: "/"))
    }

    /// A route, on the table's root unless it names one. Who may call defaults by its root
    /// (anyone under an app, no credentials outside one or for logging in) and its success
    /// status by its method (200 for GET and POST, 204 otherwise).
    init(
        _ method: HTTPRequest.Method, _ path: String, _ summary: String, on root: APIRoot? = nil, tag: String? = nil,
        who: [APIOperation.Credential]? = nil, query: [APIOperation.Query] = [], body: APIOperation.Body? = nil,
        success: [Int]? = nil, mediaType: String = "application/json", _ handler: @escaping Handler
    ) {
        let root = root ?? Controller.root
        self.root = root
        self.method = method
        self.path = path
        self.handler = handler
        operation = APIOperation(
            method: method.rawValue.lowercased(), path: root.prefix + "/" + path, summary: summary,
            tag: tag ?? Controller.tag,
            credentials: who ?? (root == .open || root == .login ? .unauthenticated : .anyone), query: query,
            body: body, success: success ?? ([.get, .post].contains(method) ? [200] : [204]),
            successMediaType: mediaType)
    }

    static func get(
        _ path: String, _ summary: String, on root: APIRoot? = nil, tag: String? = nil,
        who: [APIOperation.Credential]? = nil, query: [APIOperation.Query] = [], success: [Int]? = nil,
        mediaType: String = "application/json", _ handler: @escaping Handler
    ) -> Self {
        Self(
            .get, path, summary, on: root, tag: tag, who: who, query: query, success: success, mediaType: mediaType,
            handler)
    }

    static func head(
        _ path: String, _ summary: String, on root: APIRoot? = nil, tag: String? = nil,
        who: [APIOperation.Credential]? = nil, _ handler: @escaping Handler
    ) -> Self {
        Self(.head, path, summary, on: root, tag: tag, who: who, handler)
    }

    static func post(
        _ path: String, _ summary: String, on root: APIRoot? = nil, tag: String? = nil,
        who: [APIOperation.Credential]? = nil, query: [APIOperation.Query] = [], body: APIOperation.Body? = nil,
        success: [Int]? = nil, _ handler: @escaping Handler
    ) -> Self {
        Self(.post, path, summary, on: root, tag: tag, who: who, query: query, body: body, success: success, handler)
    }

    static func put(
        _ path: String, _ summary: String, on root: APIRoot? = nil, tag: String? = nil,
        who: [APIOperation.Credential]? = nil, body: APIOperation.Body? = nil, success: [Int]? = nil,
        _ handler: @escaping Handler
    ) -> Self {
        Self(.put, path, summary, on: root, tag: tag, who: who, body: body, success: success, handler)
    }

    static func patch(
        _ path: String, _ summary: String, on root: APIRoot? = nil, tag: String? = nil,
        who: [APIOperation.Credential]? = nil, body: APIOperation.Body? = nil, success: [Int]? = nil,
        _ handler: @escaping Handler
    ) -> Self {
        Self(.patch, path, summary, on: root, tag: tag, who: who, body: body, success: success, handler)
    }

    static func delete(
        _ path: String, _ summary: String, on root: APIRoot? = nil, tag: String? = nil,
        who: [APIOperation.Credential]? = nil, _ handler: @escaping Handler
    ) -> Self {
        Self(.delete, path, summary, on: root, tag: tag, who: who, handler)
    }
}
