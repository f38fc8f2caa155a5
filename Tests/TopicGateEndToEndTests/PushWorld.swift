import Foundation
import HTTPTypes
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore
import TopicGateServer

/// A real `topicgate serve` process on a real Mosquitto that the test controls (`--broker`),
/// sharing the broker's secret file, with helpers to make users, install devices and connect
/// them with the credentials the gateway hands out.
final class PushWorld: KiiAPI, @unchecked Sendable {
    // @unchecked: used by one test at a time.
    let broker: BrokerProcess
    let server: ServerProcess
    let directory: String
    private(set) var appID = ""
    /// True when the gateway runs its own embedded Mosquitto (`broker` then stays unused).
    let embedded: Bool

    /// `arguments`: more `serve` flags. `embedded`: the gateway starts its own Mosquitto, as
    /// `make run` does, instead of using the test's.
    /// `directory`: the gateway's data folder (default: a new one in the temporary folder).
    /// `broker` and `link`: the test's broker, and the flags that link the gateway to it
    /// (default: a plain broker, `--broker mqtt://…` with its secret file).
    init(
        embedded: Bool = false, arguments: [String] = [], directory: String? = nil, broker given: BrokerProcess? = nil,
        link: [String]? = nil
    ) throws {
        let broker = try given ?? BrokerProcess()
        self.broker = broker
        self.embedded = embedded
        self.directory =
            directory
            ?? TestFolder.url.appendingPathComponent("tg-push-\(UUID().uuidString)").path
        server = ServerProcess(
            dataDirectory: self.directory,
            arguments: (embedded
                ? []
                : link ?? ["--broker", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-secret-file", broker.secretFile])
                + arguments)
    }

    /// A broker and a gateway (with more `serve` flags), started.
    /// A port found free can be taken by another process before the gateway binds it (the
    /// gateway then exits at once): up to three worlds with new ports are tried.
    static func started(embedded: Bool = false, arguments: [String] = [], directory: String? = nil) async throws
        -> PushWorld
    {
        var attempt = 1
        while true {
            let world = try PushWorld(
                embedded: embedded, arguments: arguments,
                directory: directory.map { attempt == 1 ? $0 : $0 + "-\(attempt)" })
            do {
                try await world.start()
                return world
            } catch  where attempt < 3 && world.server.lostItsPort {
                try? await world.stop()
                attempt += 1
            }
        }
    }

    /// The common scene: `owner` owns a group with `member`, whose topic `news` `member` is
    /// subscribed to, and `member` has an installed (not yet connected) device.
    struct SubscribedMember {
        let owner: (id: String, token: String)
        let member: (id: String, token: String)
        let topic: String
        let endpoint: Endpoint
    }

    func subscribedMember() async throws -> SubscribedMember {
        let owner = try await pseudoUser()
        let member = try await pseudoUser()
        let topic = try await groupTopic(owner: owner.token, members: [member.id])
        try await subscribe(topic, userID: member.id, token: member.token)
        return SubscribedMember(
            owner: owner, member: member, topic: topic, endpoint: try await install(token: member.token))
    }

    /// Starts the broker and the gateway.
    func start() async throws {
        if !embedded { try await broker.start() }
        try await server.start()
        appID = try server.printedValue("appID")
    }

    func execute(
        _ method: HTTPRequest.Method, _ path: String, token: String?, contentType: String?, body: String?,
        headers: HTTPFields
    ) async throws -> APIReply {
        try await server.execute(method, path, token: token, contentType: contentType, body: body, headers: headers)
    }

    func adminCredentials() async throws -> (clientID: String, clientSecret: String) {
        try server.adminCredentials()
    }

    /// Sends `{"data":{"msg":message}}`, which must be accepted; returns the pushMessageID.
    @discardableResult
    func push(_ topic: String, token: String, message: String) async throws -> String {
        try await send(topic, token: token, message: message).expect(.created).require("pushMessageID")
    }

    struct Endpoint {
        init(installationID: String, object: [String: JSONValue], headers: HTTPFields = [:]) {
            self.installationID = installationID
            self.object = object
            self.headers = headers
        }

        let installationID: String
        let object: [String: JSONValue]
        let headers: HTTPFields
        var username: String { object["username"]?.stringValue ?? "" }
        var password: String { object["password"]?.stringValue ?? "" }
        var topic: String { object["mqttTopic"]?.stringValue ?? "" }
        var host: String { object["host"]?.stringValue ?? "" }
        var portTCP: Int { object["portTCP"]?.intValue.map(Int.init) ?? 0 }
    }

    func stop() async throws {
        _ = try await server.stop(signal: SIGTERM)
        if !embedded { try await broker.stop() }
        try? FileManager.default.removeItem(atPath: directory)
        try? FileManager.default.removeItem(atPath: server.outputPath)
    }

    /// Runs `body`, then stops the world, whether `body` threw or not.
    func stopping<T>(_ body: () async throws -> T) async throws -> T {
        let value: T
        do {
            value = try await body()
        } catch {
            try await stop()
            throw error
        }
        try await stop()
        return value
    }
}

extension MQTTMessage {
    /// The payload as a JSON object.
    var object: [String: JSONValue] { (try? JSONReader.object(payload)) ?? [:] }
}

/// Devices as a Kii SDK makes them, through any gateway: install, read the endpoint, connect.
extension KiiAPI {
    /// Onboards thing `vendorThingID` with `owner` (a pseudo user): its ID, token and endpoint.
    func onboardThing(_ vendorThingID: String, owner: (id: String, token: String)) async throws
        -> (id: String, token: String, endpoint: PushWorld.Endpoint)
    {
        let onboarded = try await call(
            .post, "/thing-if/apps/\(appID)/onboardings", token: owner.token,
            contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
            json: [
                "vendorThingID": .string(vendorThingID), "thingPassword": "thing-secret",
                "owner": .string("user:\(owner.id)"),
            ]
        ).expect(.ok)
        guard case .object(let endpoint)? = onboarded.object["mqttEndpoint"] else {
            throw TestFailure("onboarding answered no mqttEndpoint: \(onboarded.object)")
        }
        return (
            try #require(onboarded.object["thingID"]?.stringValue),
            try #require(onboarded.object["accessToken"]?.stringValue),
            PushWorld.Endpoint(installationID: endpoint["installationID"]?.stringValue ?? "", object: endpoint)
        )
    }

    /// The installation `installationID` of `principal` (`user:…`, `thing:…`) as the admin's
    /// access page of the principal shows it (`online`, `lastSeen`, …); empty when it is not there.
    func installation(_ installationID: String, of principal: String, admin: String) async throws
        -> [String: JSONValue]
    {
        let access = try await call(.get, "\(app)/principals/\(principal)/access", token: admin).expect(.ok)
        let installations = access.object["installations"]?.arrayValue?.compactMap(\.objectValue) ?? []
        return installations.first { $0["installationID"]?.stringValue == installationID } ?? [:]
    }

    /// Installs an MQTT device for `token` and reads its endpoint (the installation ID and the
    /// endpoint's JSON).
    func install(token: String) async throws -> PushWorld.Endpoint {
        let id = try await call(
            .post, "\(app)/installations", token: token,
            contentType: "application/vnd.kii.InstallationCreationRequest+json",
            json: ["deviceType": "MQTT", "development": "true"]
        ).expect(.created).require("installationID")
        let endpoint = try await call(.get, "\(app)/installations/\(id)/mqtt-endpoint", token: token).expect(.ok)
        return PushWorld.Endpoint(installationID: id, object: endpoint.object, headers: endpoint.headers)
    }

    /// An MQTT client configured from `endpoint` exactly as Kii's SDKs do (client ID = topic).
    func device(_ endpoint: PushWorld.Endpoint, password: String? = nil, cleanSession: Bool = true) throws -> MQTTClient
    {
        try MQTTClient(
            configuration: MQTTClientConfiguration(
                host: endpoint.host, port: endpoint.portTCP, clientID: endpoint.topic, username: endpoint.username,
                password: password ?? endpoint.password, cleanSession: cleanSession, reconnectDelay: (1, 1)))
    }

    /// Connects `endpoint`'s device and subscribes it to its topic.
    func connectedDevice(_ endpoint: PushWorld.Endpoint, cleanSession: Bool = true) async throws -> MQTTClient {
        let client = try device(endpoint, cleanSession: cleanSession)
        try await client.connect(timeout: .seconds(5))
        try await client.subscribe(endpoint.topic)
        return client
    }
}
