import Foundation
import Hummingbird
import MQTTBridge
import TopicGateCore
import TopicGateStore

/// What `topicgate bench` holds TopicGate's sends against besides raw MQTT: the least any
/// gateway must do per push to answer only once the push is safe. A minimal Hummingbird handler,
/// `POST /messages?topic=T` with the payload as its body, writes the payload to an outbox in
/// SQLite (TopicGate's own store, so the same durable write with the same group commit),
/// publishes it to `T` with QoS 1 and answers 201. No token, no ACL, no recipients, no JSON, no
/// delivery bookkeeping: what TopicGate does beyond this bound is its own cost.
public enum DurablePublishBound {
    public static func run(
        port: Int, dataDirectory: String, brokerHost: String, brokerPort: Int, mqttSecret: String, username: String
    ) async throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let store = try SQLiteStore(path: dataDirectory + "/bound.sqlite")
        let (app, _) = try await AppRegistry(store: store).defaultApp()
        let now = Int64(Date().timeIntervalSince1970)
        let client = try MQTTClient(
            configuration: MQTTClientConfiguration(
                host: brokerHost, port: brokerPort, clientID: "\(username)-bound-\(UUID().uuidString.prefix(8))",
                username: username,
                password: MQTTCredentialSigner(secret: mqttSecret).gatewayPassword(
                    username: username, issuedAt: now, expiresAt: now + 86_400)))
        try await client.connect(timeout: .seconds(10))
        defer { client.shutdown() }
        let router = Router()
        router.get("ready") { _, _ in HTTPResponse.Status.ok }
        router.post("messages") { request, _ in
            guard let topic = request.uri.queryParameters.get("topic"), !topic.isEmpty else {
                return HTTPResponse.Status.badRequest
            }
            let payload = Array(buffer: try await request.body.collect(upTo: 65_536))
            try await store.enqueue([
                OutboxMessage(
                    id: Secrets.randomHex(bytes: 12), appID: app.id, payload: payload, recipients: [],
                    acceptedAt: Int64(Date().timeIntervalSince1970 * 1000))
            ])
            try await client.publish(topic, payload: payload)
            return HTTPResponse.Status.created
        }
        let application = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)))
        try await application.runService()
    }
}
