import NIOCore
import NIOHTTP1
import TopicGateCore

/// The Kii calls the scenarios set themselves up with.
extension BenchWorld {
    /// A device's MQTT credentials, as `mqtt-endpoint` hands them out.
    struct Endpoint: Sendable {
        let topic: String
        /// The broker's plain MQTT port (brokers differ when the gateway spreads devices over several).
        let port: Int
        let username: String
        let password: String
    }

    /// A call that must answer `expected`; its JSON object.
    func call(
        _ connection: BenchHTTPConnection, _ method: HTTPMethod, _ path: String, token: String? = nil,
        contentType: String = "application/json", body: String? = nil, expected: Int
    ) async throws -> [String: JSONValue] {
        let response = try await connection.send(method, path, token: token, contentType: contentType, body: body)
        guard response.status == expected else {
            throw BenchError(
                "\(method) \(path) answered \(response.status), not \(expected): "
                    + "\(String(decoding: response.body, as: UTF8.self))"
            )
        }
        return (try? JSONReader.object(response.body)) ?? [:]
    }

    func adminToken(_ connection: BenchHTTPConnection) async throws -> String {
        let body = #"{"grant_type":"client_credentials","client_id":"\#(clientID)","client_secret":"\#(clientSecret)"}"#
        return try await call(connection, .POST, "\(api)/oauth2/token", body: body, expected: 200)["access_token"]?
            .stringValue ?? ""
    }

    /// A new pseudo user: ID and token.
    func pseudoUser(_ connection: BenchHTTPConnection) async throws -> (id: String, token: String) {
        let created = try await call(
            connection, .POST, "\(api)/users",
            contentType: "application/vnd.kii.RegistrationAndAuthorizationRequest+json",
            body: "{}", expected: 201)
        return (created["userID"]?.stringValue ?? "", created["_accessToken"]?.stringValue ?? "")
    }

    /// A new pseudo user subscribed to `topic` (its path) with one MQTT installation, who read
    /// `users/me`: the installation's endpoint. With `ownTopic`, the user also creates a topic of
    /// its own, subscribes to it and sends to it once (so that the gateway has it, its entries
    /// and its subscribers in memory, as it has for a topic in use).
    func subscribedDevice(_ connection: BenchHTTPConnection, topic: String, ownTopic: Bool = false) async throws
        -> Endpoint
    {
        let user = try await pseudoUser(connection)
        _ = try await call(
            connection, .PUT, "\(topic)/push/subscriptions/users/\(user.id)", token: user.token, expected: 204)
        let endpoint = try await install(connection, token: user.token)
        _ = try await call(connection, .GET, "\(api)/users/me", token: user.token, expected: 200)
        if ownTopic {
            let own = "\(api)/users/\(user.id)/topics/inbox"
            _ = try await call(connection, .PUT, own, token: user.token, expected: 204)
            _ = try await call(
                connection, .PUT, "\(own)/push/subscriptions/users/\(user.id)", token: user.token, expected: 204)
            _ = try await call(
                connection, .POST, "\(own)/push/messages", token: user.token,
                contentType: "application/vnd.kii.SendPushMessageRequest+json", body: #"{"data":{"seq":-1}}"#,
                expected: 201)
        }
        return endpoint
    }

    /// Onboards a thing owned by the user `owner` (its ID and token): the thing's ID, token and
    /// MQTT endpoint.
    func onboardThing(_ connection: BenchHTTPConnection, vendorThingID: String, owner: (id: String, token: String))
        async throws -> (id: String, token: String, endpoint: Endpoint)
    {
        let onboarded = try await call(
            connection, .POST, "/thing-if/apps/\(appID)/onboardings", token: owner.token,
            contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
            body:
                #"{"vendorThingID":"\#(vendorThingID)","thingPassword":"\#(vendorThingID)-password","owner":"user:\#(owner.id)"}"#,
            expected: 200)
        guard let thingID = onboarded["thingID"]?.stringValue, let thingToken = onboarded["accessToken"]?.stringValue,
            let endpoint = onboarded["mqttEndpoint"]?.objectValue
        else { throw BenchError("onboarding answered no thing or endpoint") }
        return (thingID, thingToken, self.endpoint(endpoint))
    }

    /// Installs an MQTT device for `token` and reads its endpoint.
    func install(_ connection: BenchHTTPConnection, token: String) async throws -> Endpoint {
        let installed = try await call(
            connection, .POST, "\(api)/installations", token: token, body: #"{"deviceType":"MQTT"}"#, expected: 201)
        let id = installed["installationID"]?.stringValue ?? ""
        let endpoint = try await call(
            connection, .GET, "\(api)/installations/\(id)/mqtt-endpoint", token: token, expected: 200)
        return self.endpoint(endpoint)
    }

    /// The credentials in an `mqtt-endpoint` answer (or an onboarding's `mqttEndpoint`).
    func endpoint(_ fields: [String: JSONValue]) -> Endpoint {
        Endpoint(
            topic: fields["mqttTopic"]?.stringValue ?? "", port: fields["portTCP"]?.intValue.map(Int.init) ?? mqttPort,
            username: fields["username"]?.stringValue ?? "", password: fields["password"]?.stringValue ?? "")
    }

    /// Connects a benchmark device with `endpoint`'s credentials to its broker and subscribes it
    /// to its topic.
    func connectDevice(
        _ endpoint: Endpoint, onMessage: @escaping @Sendable (ByteBufferView, ContinuousClock.Instant) -> Void
    ) async throws -> BenchDevice {
        let device = BenchDevice { payload, at in onMessage(payload.readableBytesView, at) }
        try await device.connect(
            group: group, host: mqttHost, port: endpoint.port, clientID: endpoint.topic, username: endpoint.username,
            password: endpoint.password)
        try await device.subscribe(endpoint.topic)
        return device
    }
}
