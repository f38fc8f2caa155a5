import HTTPTypes

/// The same server's API in another app than its default one.
public struct AppScopedAPI: KiiAPI {
    let base: any KiiAPI
    public let appID: String
    let clientID: String
    let clientSecret: String

    public func execute(
        _ method: HTTPRequest.Method, _ path: String, token: String?, contentType: String?, body: String?,
        headers: HTTPFields
    ) async throws -> APIReply {
        try await base.execute(method, path, token: token, contentType: contentType, body: body, headers: headers)
    }

    public func adminCredentials() async throws -> (clientID: String, clientSecret: String) {
        (clientID, clientSecret)
    }
}

extension KiiAPI {
    /// This server's API in app `appID`, whose admin has `clientID` and `clientSecret`.
    public func inApp(_ appID: String, clientID: String, clientSecret: String) -> AppScopedAPI {
        AppScopedAPI(base: self, appID: appID, clientID: clientID, clientSecret: clientSecret)
    }
}
