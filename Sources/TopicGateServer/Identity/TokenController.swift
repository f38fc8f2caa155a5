import HTTPTypes
import Hummingbird
import TopicGateCore
import TopicGateStore

/// The OAuth2 token endpoint: `POST /api/apps/{appID}/oauth2/token`, and
/// `POST /api/oauth2/token`, which names the app in `X-Kii-AppID` or by the client ID.
struct TokenController<Context: CallerRequestContext>: Sendable {
    let login: LoginService
    let authenticator: Authenticator
    let body: RequestBody

    /// `POST …/oauth2/token`, on the app's login routes.
    func addLoginRoutes(to group: RouterGroup<Context>) {
        group.post("oauth2/token") { request, context in
            let caller = try context.caller
            let token = try TokenRequest(body: try await body.formOrObject(request))
            return JSONResponse.ok(try await login.grant(app: caller.app, request: token, address: caller.address))
        }
    }

    /// `POST …/oauth2/revoke` (RFC 7009) with `token` in a form or JSON body, and
    /// `DELETE …/users/{id}/tokens` (the admin), on the app's authenticated routes.
    func addRevocationRoutes(to group: RouterGroup<Context>) {
        group.post("oauth2/revoke") { request, context in
            let caller = try context.caller
            guard let token = try await body.formOrObject(request)["token"]?.stringValue, !token.isEmpty else {
                throw KiiError.oauth(.invalidRequest, "Name the token to revoke in 'token'.")
            }
            try await login.revoke(token: token, caller: caller)
            return JSONResponse.ok([:])
        }
        group.delete("users/:user/tokens") { _, context in
            let caller = try context.caller
            let reference = try context.parameters.userReference(appID: caller.appID)
            guard case .id(let id) = reference else {
                throw KiiError.invalidInput("Name the user by its ID.", field: "user")
            }
            try await login.revokeAll(of: .user(id), caller: caller)
            return JSONResponse.noContent()
        }
    }

    /// `POST /api/oauth2/token`: the one route whose app is not in its path.
    func addRoutes(to router: Router<Context>) {
        router.post("api/oauth2/token") { request, context in
            let token = try TokenRequest(body: try await body.formOrObject(request))
            let caller = try await authenticator.anonymous(
                request, peer: context.remoteAddress, appID: try await appWithoutPath(request, clientID: token.clientID)
            )
            return JSONResponse.ok(try await login.grant(app: caller.app, request: token, address: caller.address))
        }
    }

    /// The JS and Unity SDKs name the app in `X-Kii-AppID`; a client-credentials call names it
    /// (or its client ID) in `client_id`.
    func appWithoutPath(_ request: Request, clientID: String?) async throws -> String {
        if let header = request.headers[HTTPField.Name("X-Kii-AppID")!] { return header }
        if let clientID {
            return try await login.appID(clientID: clientID) ?? clientID
        }
        throw KiiError(.appNotFound, "Name the app in the X-Kii-AppID header or use /api/apps/{appID}/oauth2/token.")
    }
}
