import Foundation
import Logging
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TopicGateCore
import TopicGateServer
import TopicGateStore
import TestSupport

/// A gateway over a fresh SQLite file in a temporary folder, with its default app, driven
/// through Hummingbird's router test client.
struct TestServer {
    let directory: String
    let configuration: ServerConfiguration
    let store: SQLiteStore
    let app: App
    let clientSecret: String
    let dispatcher: RecordingPushDispatcher
    let time: TimeSource

    /// `push: true` configures MQTT push with a broker that is never started (the router test
    /// runs no services): installations and endpoints work, nothing is delivered. `abuse`
    /// replaces the default limits; `clock` lets a test move time.
    static func make(push: Bool = false, abuse: AbuseControls? = nil, clock: ManualClock? = nil) async throws -> TestServer {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("topicgate-test-\(UUID().uuidString)").path
        var configuration = ServerConfiguration(dataDirectory: directory, logLevel: .error, passwordHashCost: 4)
        if let abuse { configuration.abuse = abuse }
        if push {
            configuration.push = PushConfiguration(
                broker: .external(host: "127.0.0.1", port: FreePort.next()), secretFile: directory + "/mqtt-secret",
                advertisedHost: "mqtt.example.com")
            configuration.push?.publicPorts = MQTTPorts(tcp: 1883, ssl: 8883, ws: 12470, wss: 12473)
        }
        let store = try openStore(configuration: configuration)
        let (app, secret) = try await AppRegistry(store: store).defaultApp()
        return TestServer(
            directory: directory, configuration: configuration, store: store, app: app, clientSecret: secret!,
            dispatcher: RecordingPushDispatcher(), time: clock?.timeSource ?? .system)
    }

    var appPath: String { "/api/apps/\(app.id.rawValue)" }

    /// Runs `test` against the application, then removes the folder.
    func run(_ test: @escaping @Sendable (Client) async throws -> Void) async throws {
        let application = try await buildApplication(
            configuration: configuration, store: store, dispatcher: dispatcher, time: time)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await application.test(.router) { client in
            try await test(Client(client: client, server: self))
        }
    }

    /// A test client that speaks JSON and knows the app.
    struct Client: Sendable {
        let client: any TestClientProtocol
        let server: TestServer

        var app: String { server.appPath }

        @discardableResult
        func call(
            _ method: HTTPRequest.Method, _ path: String, token: String? = nil, contentType: String? = nil,
            body: String? = nil, headers extra: HTTPFields = [:]
        ) async throws -> Reply {
            var headers = extra
            if let token { headers[.authorization] = "Bearer \(token)" }
            if let contentType { headers[.contentType] = contentType }
            let response = try await client.execute(
                uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
            return Reply(response: response)
        }

        /// The recipients of the last recorded send.
        var lastRecipients: [Subscriber]? { server.dispatcher.deliveries.last?.recipients }

        /// A new group owned by `owner` with `members`: its ID.
        func group(owner: String, members: [String] = []) async throws -> String {
            let list = members.map { "\"\($0)\"" }.joined(separator: ",")
            let reply = try await call(
                .post, "\(app)/groups", token: owner, contentType: "application/json",
                body: #"{"name":"g","members":[\#(list)]}"#)
            #expect(reply.status == .created)
            return try #require(reply.string("groupID"))
        }

        /// Sends `{"data":{"msg":…}}` to the topic at `path`.
        func send(_ path: String, token: String?, message: String = "hello") async throws -> Reply {
            try await call(
                .post, "\(path)/push/messages", token: token,
                contentType: "application/vnd.kii.SendPushMessageRequest+json",
                body: #"{"data":{"msg":"\#(message)"},"gcm":{"enabled":true},"apns":{"enabled":true},"mqtt":{"enabled":true}}"#)
        }

        /// A new pseudo user: its ID and token.
        func pseudoUser(_ body: String = "{}") async throws -> (id: String, token: String) {
            let reply = try await call(
                .post, "\(app)/users", contentType: "application/vnd.kii.RegistrationAndAuthorizationRequest+json",
                body: body)
            #expect(reply.status == .created)
            return (try #require(reply.string("userID")), try #require(reply.string("_accessToken")))
        }

        /// A new normal user with login name `name` and password `password123`: its ID and token.
        func normalUser(_ name: String) async throws -> (id: String, token: String) {
            let reply = try await call(
                .post, "\(app)/users", contentType: "application/vnd.kii.RegistrationAndAuthorizationRequest+json",
                body: #"{"loginName":"\#(name)","password":"password123"}"#)
            #expect(reply.status == .created)
            return (try #require(reply.string("userID")), try #require(reply.string("_accessToken")))
        }

        /// An admin token from the client credentials.
        func adminToken() async throws -> String {
            let reply = try await call(
                .post, "\(app)/oauth2/token", contentType: "application/json",
                body: #"{"grant_type":"client_credentials","client_id":"\#(server.app.clientID)","client_secret":"\#(server.clientSecret)"}"#)
            #expect(reply.status == .ok)
            return try #require(reply.string("access_token"))
        }

        /// Registers a thing: its ID and token.
        func thing(_ vendorThingID: String, password: String = "thing-password") async throws -> (id: String, token: String) {
            let reply = try await call(
                .post, "\(app)/things", contentType: "application/vnd.kii.ThingRegistrationAndAuthorizationRequest+json",
                body: #"{"_vendorThingID":"\#(vendorThingID)","_password":"\#(password)","_thingType":"lamp"}"#)
            #expect(reply.status == .created)
            return (try #require(reply.string("_thingID")), try #require(reply.string("_accessToken")))
        }
    }

    /// A response with its body read as JSON.
    struct Reply: Sendable {
        let response: TestResponse

        var status: HTTPResponse.Status { response.status }
        var headers: HTTPFields { response.headers }
        var text: String { String(buffer: response.body) }
        var json: JSONValue? { try? JSONReader.value(Array(response.body.readableBytesView)) }
        var object: [String: JSONValue] { json?.objectValue ?? [:] }

        func string(_ key: String) -> String? { object[key]?.stringValue }

        /// The `errorCode` of an error body.
        var errorCode: String? { string("errorCode") }
    }
}
