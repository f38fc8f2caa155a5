import Hummingbird

/// Puts the caller of every request on the app's routes into the request context: the app from
/// the path, the principal from the `Authorization` header (see `Authenticator`), the client
/// address. Handlers read it as `context.caller`.
///
/// The login routes (`…/oauth2/token`, `…/links/login`) use it with `readsCredentials: false`:
/// their caller is anonymous whatever the header says, since a client logging in may still
/// send a stale token.
struct CallerMiddleware: RouterMiddleware {
    typealias Context = TopicGateRequestContext

    let authenticator: Authenticator
    var readsCredentials = true

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        let appID = try context.parameters.appID()
        context.identity =
            if readsCredentials {
                try await authenticator.caller(request, peer: context.remoteAddress, appID: appID)
            } else {
                try await authenticator.anonymous(request, peer: context.remoteAddress, appID: appID)
            }
        return try await next(request, context)
    }
}
