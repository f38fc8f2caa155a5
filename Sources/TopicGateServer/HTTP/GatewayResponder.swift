import Hummingbird

/// The router's responder under a type of this module. Hummingbird's serving loop is generic
/// over its responder and calls it through the protocol; through this concrete type the
/// compiler specializes the router's path lookup (inlinable in Hummingbird) for
/// `TopicGateRequestContext`, where the generic one looked up type metadata at every trie node.
struct GatewayResponder: HTTPResponder {
    let routes: RouterResponder<TopicGateRequestContext>

    func respond(to request: Request, context: TopicGateRequestContext) async throws -> Response {
        try await routes.respond(to: request, context: context)
    }
}
