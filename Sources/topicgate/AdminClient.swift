import ArgumentParser
import Foundation
import TopicGateCore

/// The operator commands' way to a running server: the app's client credentials turned into
/// an admin token, then plain HTTP calls to the admin endpoints.
struct AdminClient {
    let server: URL
    let appID: String
    let clientID: String
    let clientSecret: String
    var token: String?

    init(options: AdminOptions) throws {
        let environment = ProcessInfo.processInfo.environment
        guard let url = URL(string: options.server ?? environment["TOPICGATE_URL"] ?? "http://127.0.0.1:8080") else {
            throw ValidationError("The server URL is not valid.")
        }
        guard let appID = options.appID ?? environment["TOPICGATE_APP_ID"],
            let clientID = options.clientID ?? environment["TOPICGATE_CLIENT_ID"],
            let clientSecret = options.clientSecret ?? environment["TOPICGATE_CLIENT_SECRET"]
        else {
            throw ValidationError(
                "Give the app's credentials: --app-id, --client-id and --client-secret "
                    + "(or TOPICGATE_APP_ID, TOPICGATE_CLIENT_ID, TOPICGATE_CLIENT_SECRET).")
        }
        self.server = url
        self.appID = appID
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    /// An admin token from the client credentials.
    mutating func authenticate() async throws {
        let body: JSONValue = [
            "grant_type": "client_credentials", "client_id": .string(clientID), "client_secret": .string(clientSecret),
        ]
        let (status, reply) = try await send("POST", "/api/apps/\(appID)/oauth2/token", body: body, authorized: false)
        guard let token = reply.objectValue?["access_token"]?.stringValue else {
            throw KiiHTTPError(
                status: status, code: reply.objectValue?["errorCode"]?.stringValue ?? "HTTP_\(status)",
                message: "The app's client credentials were refused.")
        }
        self.token = token
    }

    /// Calls `path` below `/api/apps/{appID}`; a 4xx/5xx answer becomes an error that prints
    /// its `errorCode` and `message`.
    func call(_ method: String, _ path: String, body: JSONValue? = nil) async throws -> JSONValue {
        try await KiiHTTP.call(server: server, method, "/api/apps/\(appID)" + path, token: token, body: body)
    }

    func send(_ method: String, _ path: String, body: JSONValue?, authorized: Bool) async throws -> (Int, JSONValue) {
        try await KiiHTTP.send(server: server, method, path, token: authorized ? token : nil, body: body)
    }
}

/// Where the server is and the app's client credentials.
struct AdminOptions: ParsableArguments {
    @Option(help: "The server's base URL (env TOPICGATE_URL; default http://127.0.0.1:8080).")
    var server: String?
    @Option(help: "The app's ID (env TOPICGATE_APP_ID).")
    var appID: String?
    @Option(help: "The app's client ID (env TOPICGATE_CLIENT_ID).")
    var clientID: String?
    @Option(help: "The app's client secret (env TOPICGATE_CLIENT_SECRET).")
    var clientSecret: String?

    /// An authenticated client.
    func client() async throws -> AdminClient {
        var client = try AdminClient(options: self)
        try await client.authenticate()
        return client
    }
}
