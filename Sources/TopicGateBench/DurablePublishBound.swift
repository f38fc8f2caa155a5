import Foundation
import Hummingbird
import MQTTBridge
import TopicGateCore
import TopicGateServer
import TopicGateStore

/// What `topicgate bench` holds TopicGate against besides raw MQTT: the least any gateway must
/// do per request to answer only once what it accepted is safe. A minimal Hummingbird handler,
/// served by the same HTTP channel as TopicGate (`KiiHTTP1Channel`), on TopicGate's own store
/// (SQLite, or PostgreSQL with `database`), so the same durable write with the same group
/// commit:
/// - `POST /messages?topic=T` with the payload as its body writes the payload to the outbox,
///   publishes it to `T` with QoS 1 and answers 201 (a send; two in a row are a command's round
///   trip);
/// - `POST /users` stores a new user with a new token in one transaction and answers 201 with
///   the token (a pseudo user's sign-up).
/// No token checked, no ACL, no recipients, no JSON, no delivery bookkeeping: what TopicGate does
/// beyond this bound is its own cost.
public enum DurablePublishBound {
    public static func run(
        port: Int, dataDirectory: String, database: PostgresLocation? = nil, brokerHost: String, brokerPort: Int,
        mqttSecret: String, username: String
    ) async throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let store: any Store =
            if let database { try await PostgresStore.open(database) } else {
                try SQLiteStore(path: dataDirectory + "/bound.sqlite")
            }
        let (app, _) = try await AppRegistry(store: store).defaultApp()
        let tokens = TokenIssuer(store: store, time: .system)
        let now = TimeSource.system.seconds()
        let client = try MQTTClient(
            configuration: MQTTClientConfiguration(
                host: brokerHost, port: brokerPort, clientID: "\(username)-bound-\(UUID().uuidString.prefix(8))",
                username: username,
                password: MQTTCredentialSigner(secret: mqttSecret).gatewayPassword(
                    username: username, issuedAt: now, expiresAt: now + .seconds(86_400))))
        try await client.connect(timeout: .seconds(10))
        defer { client.shutdown() }
        let router = Router()
        router.get("ready") { _, _ in HTTPResponse.Status.ok }
        router.post("messages") { request, _ in
            guard let topic = request.uri.queryParameters.get("topic"), !topic.isEmpty else {
                return HTTPResponse.Status.badRequest
            }
            let payload = Array(buffer: try await request.body.collect(upTo: 65_536))
            // Stored claimed, as TopicGate's fresh pushes are; for a day, so that a gateway on the
            // same database leaves them alone.
            let now = UnixMillis(Int64(Date().timeIntervalSince1970 * 1000))
            try await store.enqueue(
                [
                    OutboxMessage(
                        id: PushMessageID(Secrets.randomHex(bytes: 12)), appID: app.id, payload: payload,
                        recipients: [],
                        acceptedAt: now)
                ], claim: OutboxClaim(gateway: "bench-bound", leaseUntil: now + .seconds(86_400)))
            try await client.publish(topic, payload: payload)
            return HTTPResponse.Status.created
        }
        router.post("users") { request, _ in
            _ = try await request.body.collect(upTo: 65_536)
            let now = UnixMillis(Int64(Date().timeIntervalSince1970 * 1000))
            let user = User(id: UserID(Secrets.userID()), appID: app.id, createdAt: now, modifiedAt: now)
            let (token, stored) = tokens.make(appID: app.id, principal: .user(user.id))
            try await store.insertUser(user, token: stored)
            return Response(status: .created, body: ResponseBody(byteBuffer: ByteBuffer(string: token)))
        }
        let application = Application(
            router: router, server: kiiHTTPServer(),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)))
        try await application.runService()
    }
}
