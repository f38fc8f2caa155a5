import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore
import TopicGateStore

@testable import TopicGateServer

/// Every route the API declares for the admin alone refuses everyone else, even when what it
/// names is the caller's own (its user, its thing, its group, its topics), and does nothing.
@Suite("Admin routes")
struct AdminRouteTests {
    @Test(
        "Each admin-only route, called by a user on its own user, thing, group and topics, by that thing, by an anonymous token and with no credentials: 401 or 403 with a Kii error, and nothing changes"
    )
    func refuseEveryoneElse() async throws {
        let operations = APIRoutes.operations.filter { $0.credentials == .admin }
        // The routes of the operators' console, the statuses, the user query, the cleanup, …
        #expect(operations.count >= 15)
        let server = try await TestServer.make()
        try await server.run { client in
            let admin = try await client.adminToken()
            let user = try await client.pseudoUser()
            let thing = try await client.thing("admin-route-lamp", token: user.token)
            try await client.call(.put, "\(client.app)/things/\(thing.id)/ownership/user:\(user.id)", token: admin)
                .expect(.noContent)
            let groupID = try #require(
                try await client.call(
                    .post, "\(client.app)/groups", token: user.token, contentType: "application/json",
                    json: ["name": "mine"]
                ).string("groupID"))
            try await client.call(.put, "\(client.app)/topics/t1", token: admin).expect(.noContent)
            for scope in ["users/\(user.id)", "groups/\(groupID)", "things/\(thing.id)"] {
                try await client.call(.put, "\(client.app)/\(scope)/topics/t1", token: user.token).expect(.noContent)
            }
            let anonymous = try await client.call(
                .post, "\(client.app)/oauth2/token",
                json: [
                    "grant_type": "client_credentials", "client_id": .string(server.app.id.rawValue),
                    "client_secret": "any",
                ]
            ).expect(.ok).require("access_token")
            let callers: [(name: String, token: String?)] = [
                ("the user", user.token), ("its thing", thing.token), ("an anonymous token", anonymous),
                ("no credentials", nil),
            ]
            func path(_ operation: APIOperation) -> String {
                var path = operation.path.replacingOccurrences(of: "/api/apps/{appID}", with: client.app)
                let values = [
                    "user": user.id, "thing": thing.id, "group": groupID, "topic": "t1",
                    "principal": "user:\(user.id)", "message": "m1", "name": "allowCreateTaskByPrincipal",
                ]
                for name in operation.pathParameters {
                    path = path.replacingOccurrences(of: "{\(name)}", with: values[name] ?? "x")
                }
                // A query the route needs, so that it is refused for who calls, not for what it asks.
                if operation.query.contains(where: { $0.name == "action" }) { path += "?action=SUBSCRIBE_TO_TOPIC" }
                return path
            }
            func body(_ operation: APIOperation) -> (String?, String?) {
                guard let body = operation.body else { return (nil, nil) }
                let text: String =
                    if operation.path.hasSuffix("/status") {
                        #"{"disabled":true}"#
                    } else if operation.path.hasSuffix("/pseudo-user-cleanup") {
                        #"{"idleDays":0,"dryRun":false}"#
                    } else if operation.path.hasSuffix("/users/query") {
                        #"{"userQuery":{"clause":{"type":"all"}}}"#
                    } else if body.mediaTypes.first == "text/plain" { "true" } else { "{}" }
                return (body.mediaTypes.first, text)
            }
            for operation in operations {
                let (contentType, text) = body(operation)
                for caller in callers {
                    let reply = try await client.call(
                        HTTPRequest.Method(rawValue: operation.method.uppercased())!, path(operation),
                        token: caller.token, contentType: contentType, body: text)
                    #expect(
                        reply.status == .forbidden || reply.status == .unauthorized,
                        "\(operation.method) \(operation.path) by \(caller.name): \(reply.status)")
                    #expect(
                        reply.object["errorCode"]?.stringValue != nil,
                        "\(operation.method) \(operation.path) by \(caller.name)")
                }
            }
            // Nothing was disabled, revoked, cleaned up or set.
            try await client.call(.get, "\(client.app)/users/me", token: user.token).expect(.ok)
            try await client.call(.get, "\(client.app)/things/\(thing.id)", token: thing.token).expect(.ok)
            let stored = try #require(try await server.store.user(appID: server.app.id, id: UserID(user.id)))
            #expect(!stored.disabled)
            let parameter = try await client.call(
                .get, "\(client.app)/configuration/parameters/allowCreateTaskByPrincipal", token: admin)
            #expect(parameter.object["allowCreateTaskByPrincipal"]?.stringValue != "true")
        }
    }
}
