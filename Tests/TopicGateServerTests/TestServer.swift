import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import TestSupport
import Testing
import TopicGateCore
import TopicGateServer
import TopicGateStore

/// A gateway over a fresh SQLite file in a temporary folder (or, with the environment variable
/// `TOPICGATE_TEST_STORE=postgres`, a fresh database of the tests' own PostgreSQL server), with
/// its default app, driven through Hummingbird's router test client.
struct TestServer {
    let directory: String
    let configuration: ServerConfiguration
    let store: any Store
    let app: App
    let clientSecret: String
    let dispatcher: RecordingPushDispatcher
    let time: TimeSource

    /// Where `configuration`'s store is, by the pass: with `TOPICGATE_TEST_STORE=postgres` a
    /// fresh database of the tests' PostgreSQL server, else a migrated SQLite file in its folder.
    static func placeStore(_ configuration: inout ServerConfiguration) async throws {
        if ProcessInfo.processInfo.environment["TOPICGATE_TEST_STORE"] == "postgres" {
            configuration.database = PostgresLocation(url: try await TestPostgres.shared.newDatabase())
        } else {
            try MigratedSQLite.place(at: configuration.databasePath)
        }
    }

    /// `push: true` configures MQTT push with a broker that is never started (the router test
    /// runs no services): installations and endpoints work, nothing is delivered; `brokers`
    /// names several such brokers instead (`<name>.example.com` for devices). `abuse` replaces
    /// the default limits; `clock` lets a test move time; `configure` changes anything else.
    static func make(
        push: Bool = false, brokers: [String] = [], abuse: AbuseControls? = nil, clock: ManualClock? = nil,
        metricsToken: String? = nil, configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        let directory = TestFolder.url
            .appendingPathComponent("topicgate-test-\(UUID().uuidString)").path
        var configuration = ServerConfiguration(dataDirectory: directory, logLevel: .error, passwordHashCost: 4)
        if let abuse { configuration.abuse = abuse }
        configuration.metricsToken = metricsToken
        configure(&configuration)
        if push {
            configuration.push = PushConfiguration(
                broker: .external(host: "127.0.0.1", port: FreePort.next()), secretFile: directory + "/mqtt-secret",
                advertisedHost: "mqtt.example.com")
            configuration.push?.publicPorts = MQTTPorts(tcp: 1883, ssl: 8883, ws: 12470, wss: 12473)
            if !brokers.isEmpty {
                configuration.push?.broker = .several(
                    brokers.map {
                        BrokerAddress(
                            name: $0, host: "127.0.0.1", port: FreePort.next(), publicHost: "\($0).example.com",
                            publicPorts: MQTTPorts(tcp: 1883, ssl: 8883, ws: 0, wss: 0))
                    })
            }
        }
        try await placeStore(&configuration)
        let store = try await openStore(configuration: configuration)
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
        defer {
            (store as? PostgresStore)?.close()
            try? FileManager.default.removeItem(atPath: directory)
        }
        try await application.test(.router) { client in
            try await test(Client(client: client, server: self))
        }
    }

    /// A test client of the router that knows the app; its helpers are `KiiAPI`'s.
    struct Client: KiiAPI {
        let client: any TestClientProtocol
        let server: TestServer

        var appID: String { server.app.id.rawValue }

        func execute(
            _ method: HTTPRequest.Method, _ path: String, token: String?, contentType: String?, body: String?,
            headers extra: HTTPFields
        ) async throws -> APIReply {
            var headers = extra
            if let token { headers[.authorization] = "Bearer \(token)" }
            if let contentType { headers[.contentType] = contentType }
            let response = try await client.execute(
                uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
            return APIReply(
                status: response.status, headers: response.headers, body: Array(response.body.readableBytesView))
        }

        func adminCredentials() async throws -> (clientID: String, clientSecret: String) {
            (server.app.clientID, server.clientSecret)
        }

        /// The recipients of the last recorded send.
        var lastRecipients: [Subscriber]? { server.dispatcher.messages.last?.recipients }
    }

    typealias Reply = APIReply
}
