import HTTPTypes
import Hummingbird
import TopicGateCore
import TopicGateStore

/// The OAuth2 token endpoint: `POST /api/apps/{appID}/oauth2/token`, and
/// `POST /api/oauth2/token`, which names the app in `X-Kii-AppID` or by the client ID.
struct TokenController<Context: CallerRequestContext>: RouteTable {
    let login: LoginService
    let authenticator: Authenticator
    let body: RequestBody

    static var tag: String { "Identity" }

    static var routes: [APIRoute<Self>] {
        let token = APISchema.json(
            APISchema.object([
                "grant_type": APISchema.oneOf(["password", "client_credentials"]), "username": APISchema.string,
                "password": APISchema.string, "client_id": APISchema.string, "client_secret": APISchema.string,
                "expiresAt": APISchema.integer,
            ]), "application/vnd.kii.OauthTokenRequest+json")
        let summary = "Token for a user, a thing, the admin or anonymous"
        return [
            // The one route whose app is not in its path.
            .post("api/oauth2/token", summary, on: .open, body: token, Self.grantWithoutApp),
            .post("oauth2/token", summary, on: .login, body: token, Self.grant),
            .post(
                "oauth2/revoke", "Revoke a token (RFC 7009): the caller's own, or any of the app's for the admin",
                body: APISchema.json(
                    APISchema.object(
                        ["token": APISchema.string, "token_type_hint": APISchema.string], required: ["token"])),
                Self.revoke),
            .delete(
                "users/{user}/tokens", "Revoke every token of a user, and the devices installed with them (admin)",
                who: .admin, Self.revokeAll),
        ]
    }

    func grant(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let token = try TokenRequest(body: try await body.formOrObject(request))
        return try JSONResponse.ok(
            encoding: try await login.grant(app: caller.app, request: token, address: caller.address))
    }

    /// `POST …/oauth2/revoke` (RFC 7009) with `token` in a form or JSON body.
    func revoke(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        guard let token = try await body.formOrObject(request)["token"]?.stringValue, !token.isEmpty else {
            throw KiiError.oauth(.invalidRequest, "Name the token to revoke in 'token'.")
        }
        try await login.revoke(token: token, caller: caller)
        return JSONResponse.ok([:])
    }

    func revokeAll(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let reference = try context.parameters.userReference(appID: caller.appID)
        guard case .id(let id) = reference else {
            throw KiiError.invalidInput("Name the user by its ID.", field: "user")
        }
        try await login.revokeAll(of: .user(id), caller: caller)
        return JSONResponse.noContent()
    }

    func grantWithoutApp(_ request: Request, _ context: Context) async throws -> Response {
        let token = try TokenRequest(body: try await body.formOrObject(request))
        let caller = try await authenticator.anonymous(
            request, peer: context.remoteAddress, appID: try await appWithoutPath(request, clientID: token.clientID))
        return try JSONResponse.ok(
            encoding: try await login.grant(app: caller.app, request: token, address: caller.address))
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
