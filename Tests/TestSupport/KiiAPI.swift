import Foundation
import HTTPTypes
import TopicGateCore

/// The Kii API of one app, as a test speaks it: in process (the router) or over a socket (a
/// `topicgate serve` process). The helpers below (users, tokens, the admin, groups, things,
/// sends) are the only ones: every test makes its principals the same way.
public protocol KiiAPI: Sendable {
    /// The app every helper works in.
    var appID: String { get }

    /// One request; `body` as the bytes of the text given. Tests call `call`.
    func execute(
        _ method: HTTPRequest.Method, _ path: String, token: String?, contentType: String?, body: String?,
        headers: HTTPFields
    ) async throws -> APIReply

    /// The app's client ID and secret.
    func adminCredentials() async throws -> (clientID: String, clientSecret: String)
}

extension KiiAPI {
    /// `/api/apps/{appID}`.
    public var app: String { "/api/apps/\(appID)" }

    @discardableResult
    public func call(
        _ method: HTTPRequest.Method, _ path: String, token: String? = nil, contentType: String? = nil,
        body: String? = nil, headers: HTTPFields = [:]
    ) async throws -> APIReply {
        try await execute(method, path, token: token, contentType: contentType, body: body, headers: headers)
    }

    /// A request whose body is `json`, written as JSON.
    @discardableResult
    public func call(
        _ method: HTTPRequest.Method, _ path: String, token: String? = nil,
        contentType: String = "application/json", json: JSONValue, headers: HTTPFields = [:]
    ) async throws -> APIReply {
        try await execute(
            method, path, token: token, contentType: contentType, body: JSONWriter.string(json), headers: headers)
    }

    /// A new pseudo user: its ID and token.
    public func pseudoUser(_ fields: [String: JSONValue] = [:]) async throws -> (id: String, token: String) {
        let reply = try await call(
            .post, "\(app)/users", contentType: "application/vnd.kii.RegistrationAndAuthorizationRequest+json",
            json: .object(fields)
        ).expect(.created)
        return (try reply.require("userID"), try reply.require("_accessToken"))
    }

    /// A new normal user with login name `name`: its ID and token.
    public func normalUser(_ name: String, password: String = "password123") async throws -> (id: String, token: String)
    {
        let reply = try await call(
            .post, "\(app)/users", contentType: "application/vnd.kii.RegistrationAndAuthorizationRequest+json",
            json: ["loginName": .string(name), "password": .string(password)]
        ).expect(.created)
        return (try reply.require("userID"), try reply.require("_accessToken"))
    }

    /// A token from the token endpoint for `username` and `password`.
    public func login(_ username: String, password: String) async throws -> String {
        let reply = try await call(
            .post, "\(app)/oauth2/token", json: ["username": .string(username), "password": .string(password)]
        ).expect(.ok)
        return try reply.require("access_token")
    }

    /// The app admin's token, from the client credentials.
    public func adminToken() async throws -> String {
        let credentials = try await adminCredentials()
        let reply = try await call(
            .post, "\(app)/oauth2/token",
            json: [
                "grant_type": "client_credentials", "client_id": .string(credentials.clientID),
                "client_secret": .string(credentials.clientSecret),
            ]
        ).expect(.ok)
        return try reply.require("access_token")
    }

    /// A new group owned by `owner` (a token) with `members`: its ID.
    public func group(owner: String, members: [String] = [], name: String = "g") async throws -> String {
        let reply = try await call(
            .post, "\(app)/groups", token: owner, contentType: "application/vnd.kii.GroupCreationRequest+json",
            json: ["name": .string(name), "members": .array(members.map { .string($0) })]
        ).expect(.created)
        return try reply.require("groupID")
    }

    /// A group owned by `owner` with `members`, and a topic `name` in it: the topic's path.
    public func groupTopic(owner: String, members: [String], name: String = "news") async throws -> String {
        let path = "\(app)/groups/\(try await group(owner: owner, members: members))/topics/\(name)"
        try await call(.put, path, token: owner).expect(.noContent)
        return path
    }

    /// A thing registered through the Cloud API: its ID and token.
    public func thing(
        _ vendorThingID: String, password: String = "thing-password", token: String? = nil
    ) async throws -> (id: String, token: String) {
        let reply = try await call(
            .post, "\(app)/things", token: token,
            contentType: "application/vnd.kii.ThingRegistrationAndAuthorizationRequest+json",
            json: [
                "_vendorThingID": .string(vendorThingID), "_password": .string(password), "_thingType": "lamp",
            ]
        ).expect(.created)
        return (try reply.require("_thingID"), try reply.require("_accessToken"))
    }

    /// Subscribes user `userID` to the topic at `topic`.
    public func subscribe(_ topic: String, userID: String, token: String) async throws {
        try await call(.put, "\(topic)/push/subscriptions/users/\(userID)", token: token).expect(.noContent)
    }

    /// Sends `{"data": {"msg": message}}` to the topic at `topic` (with Kii's per-channel flags).
    @discardableResult
    public func send(_ topic: String, token: String?, message: String = "hello") async throws -> APIReply {
        try await call(
            .post, "\(topic)/push/messages", token: token,
            contentType: "application/vnd.kii.SendPushMessageRequest+json",
            json: [
                "data": ["msg": .string(message)], "gcm": ["enabled": true], "apns": ["enabled": true],
                "mqtt": ["enabled": true],
            ])
    }

    /// Sends a marker to the devices of a user (`kind` "users") or a thing ("things"), on a
    /// topic of its own that only it subscribes to, and returns the marker's text. Sent after
    /// the messages a test shows did not arrive: the gateway publishes in the order it accepted
    /// messages, so those would have come before it (`ReceivedMessages.before(marker:)`).
    public func marker(to principal: (id: String, token: String), kind: String = "users") async throws -> String {
        let marker = "marker-\(UUID().uuidString)"
        let topic = "\(app)/\(kind)/\(principal.id)/topics/\(marker)"
        try await call(.put, topic, token: principal.token).expect(.noContent)
        try await call(.put, "\(topic)/push/subscriptions/\(kind)/\(principal.id)", token: principal.token).expect(
            .noContent)
        try await send(topic, token: principal.token, message: marker).expect(.created)
        return marker
    }
}
