import HTTPTypes
import Hummingbird
import TopicGateCore
import TopicGateStore

/// `POST /api/oauth2/token` (app from `X-Kii-AppID` or the client ID) and
/// `POST /api/apps/{appID}/oauth2/token`.
struct TokenController<Context: RequestContext>: Sendable {
    let environment: ServerEnvironment

    func addRoutes(to router: Router<Context>) {
        router.post("api/oauth2/token") { request, context in
            let body = try await environment.body.formOrObject(request)
            let app = try await appWithoutPath(request, body: body)
            return JSONResponse.ok(
                try await environment.login.grant(app: app, body: body, address: environment.clientAddress(request, context)))
        }
        router.post("api/apps/:appID/oauth2/token") { request, context in
            let app = try await environment.authenticator.app(try context.parameters.appID())
            let body = try await environment.body.formOrObject(request)
            return JSONResponse.ok(
                try await environment.login.grant(app: app, body: body, address: environment.clientAddress(request, context)))
        }
    }

    /// The JS and Unity SDKs name the app in `X-Kii-AppID`; a client-credentials call names it
    /// (or its client ID) in `client_id`.
    func appWithoutPath(_ request: Request, body: [String: JSONValue]) async throws -> App {
        if let header = request.headers[HTTPField.Name("X-Kii-AppID")!] {
            return try await environment.authenticator.app(header)
        }
        if let clientID = body["client_id"]?.stringValue {
            if let app = try await environment.store.app(clientID: clientID) { return app }
            return try await environment.authenticator.app(clientID)
        }
        throw KiiError(.appNotFound, "Name the app in the X-Kii-AppID header or use /api/apps/{appID}/oauth2/token.")
    }
}
