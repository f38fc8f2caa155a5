import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore
import TopicGateStore

/// Installations and mqtt-endpoint over HTTP: the shapes SDKs send, the errors, who may read.
@Suite("Installations over HTTP")
struct InstallationRoutesTests {
    static let mediaType = "application/vnd.kii.InstallationCreationRequest+json"

    @Test("MQTT installs from the shapes each SDK sends: bool or string development, installationType")
    func sdkShapes() async throws {
        let server = try await TestServer.make(push: true)
        try await server.run { client in
            let user = try await client.pseudoUser()
            for body in [
                #"{"deviceType":"MQTT","development":true}"#, #"{"deviceType":"MQTT", "development": "true"}"#,
                #"{"installationType":"MQTT"}"#, #"{"deviceType":"MQTT","development":"false"}"#,
            ] {
                let installed = try await client.call(
                    .post, "\(client.app)/installations", token: user.token, contentType: Self.mediaType, body: body)
                #expect(installed.status == .created, "\(body)")
                let id = try #require(installed.string("installationID"))
                #expect(installed.string("installationRegistrationID")?.isEmpty == false)
                #expect(installed.headers[.location] == "\(client.app)/installations/\(id)")
                let endpoint = try await client.call(
                    .get, "\(client.app)/installations/\(id)/mqtt-endpoint", token: user.token)
                #expect(endpoint.status == .ok)
                #expect(
                    endpoint.headers[.contentType]?.hasPrefix("application/vnd.kii.MQTTEndpointResponse+json") == true)
                #expect(endpoint.string("host") == "mqtt.example.com")
                #expect(endpoint.object["portTCP"]?.intValue == 1883)
                #expect(endpoint.object["portSSL"]?.intValue == 8883)
                #expect(endpoint.string("username") == endpoint.string("mqttTopic"))
                #expect(endpoint.headers[HTTPField.Name("X-MQTT-TTL")!] == "2592000")
            }
        }
    }

    @Test(
        "Bad installation bodies get 400 with a clear errorCode, never a 500",
        arguments: [
            "{}", #"{"deviceType":"FAX"}"#, #"{"deviceType":"MQTT","development":"maybe"}"#, #"{"deviceType":7}"#,
            "[]", "not json", #"{"deviceType":"ANDROID"}"#,
        ])
    func badBodies(body: String) async throws {
        let server = try await TestServer.make(push: true)
        try await server.run { client in
            let user = try await client.pseudoUser()
            let reply = try await client.call(
                .post, "\(client.app)/installations", token: user.token, contentType: Self.mediaType, body: body)
            #expect(reply.status == .badRequest, "\(body): \(reply.text)")
            #expect(reply.errorCode != nil)
            #expect(reply.string("message")?.isEmpty == false)
        }
    }

    @Test("With several brokers, installations go to the one serving fewest; one whose broker was removed moves")
    func severalBrokers() async throws {
        let server = try await TestServer.make(push: true, brokers: ["a", "b"])
        try await server.run { client in
            let ann = try await client.pseudoUser()
            var hosts: [String] = []
            for _ in 0..<3 {
                let id = try await client.call(
                    .post, "\(client.app)/installations", token: ann.token, contentType: Self.mediaType,
                    body: #"{"deviceType":"MQTT"}"#
                ).require("installationID")
                let endpoint = try await client.call(
                    .get, "\(client.app)/installations/\(id)/mqtt-endpoint", token: ann.token)
                hosts.append(endpoint.string("host") ?? "")
            }
            #expect(hosts == ["a.example.com", "b.example.com", "a.example.com"])
            // A push-notification installation takes no broker.
            try await client.call(
                .post, "\(client.app)/installations", token: ann.token, contentType: Self.mediaType,
                body: #"{"deviceType":"ANDROID","installationRegistrationID":"fcm-1"}"#
            ).expect(.created)
            #expect(try await server.store.liveInstallationsByBroker() == ["a": 2, "b": 1, nil: 1])

            // Its broker was taken out of the configuration: the next endpoint names the one
            // serving fewest, and the installation stays there.
            try await server.store.insertInstallation(
                Installation(
                    id: InstallationID("moved"), appID: server.app.id, principal: .user(UserID(ann.id)),
                    deviceType: "MQTT", registrationID: "moved", mqttTopic: "moved-topic", development: false,
                    createdAt: UnixMillis(1), tokenHash: nil, broker: "gone"))
            let moved = try await client.call(.get, "\(client.app)/installations/moved/mqtt-endpoint", token: ann.token)
            #expect(moved.string("host") == "b.example.com")
            #expect(
                try await server.store.installation(appID: server.app.id, id: InstallationID("moved"))?.broker == "b")
        }
    }

    @Test("Only the owner or the admin reads an endpoint or deletes; an anonymous caller installs nothing")
    func access() async throws {
        let server = try await TestServer.make(push: true)
        try await server.run { client in
            let ann = try await client.pseudoUser()
            let bob = try await client.pseudoUser()
            let admin = try await client.adminToken()
            let noToken = try await client.call(
                .post, "\(client.app)/installations", contentType: Self.mediaType, body: #"{"deviceType":"MQTT"}"#)
            #expect(noToken.status == .unauthorized, "\(noToken.status) \(noToken.text)")

            let installed = try await client.call(
                .post, "\(client.app)/installations", token: ann.token, contentType: Self.mediaType,
                body: #"{"deviceType":"MQTT"}"#)
            let id = try #require(installed.string("installationID"))
            let path = "\(client.app)/installations/\(id)"
            let stolen = try await client.call(.get, "\(path)/mqtt-endpoint", token: bob.token)
            #expect(
                stolen.status == .forbidden && stolen.string("errorCode") == "UNAUTHORIZED",
                "\(stolen.status) \(stolen.text)")
            #expect(stolen.string("password") == nil)
            let deleted = try await client.call(.delete, path, token: bob.token)
            #expect(
                deleted.status == .forbidden && deleted.string("errorCode") == "UNAUTHORIZED",
                "\(deleted.status) \(deleted.text)")
            #expect(try await client.call(.get, "\(path)/mqtt-endpoint", token: admin).status == .ok)
            #expect(try await client.call(.get, path, token: ann.token).status == .ok)
            #expect(try await client.call(.delete, path, token: ann.token).status == .noContent)
            let gone = try await client.call(.delete, path, token: ann.token)
            #expect(gone.status == .notFound)
            #expect(gone.errorCode == "INSTALLATION_NOT_FOUND")

            // The admin installs for a user, who then reads it; the admin must say for whom.
            #expect(
                try await client.call(
                    .post, "\(client.app)/installations", token: admin, contentType: Self.mediaType,
                    body: #"{"deviceType":"MQTT"}"#
                ).status == .badRequest)
            let forBob = try await client.call(
                .post, "\(client.app)/installations", token: admin, contentType: Self.mediaType,
                json: ["deviceType": "MQTT", "userID": .string(bob.id)])
            #expect(forBob.status == .created)
            let bobsID = try #require(forBob.string("installationID"))
            #expect(
                try await client.call(.get, "\(client.app)/installations/\(bobsID)/mqtt-endpoint", token: bob.token)
                    .status == .ok)
        }
    }

    @Test("Push-notification installations are kept by registration ID; they have no MQTT endpoint")
    func registrationIDs() async throws {
        let server = try await TestServer.make(push: true)
        try await server.run { client in
            let user = try await client.pseudoUser()
            let installed = try await client.call(
                .post, "\(client.app)/installations", token: user.token, contentType: Self.mediaType,
                body: #"{"deviceType":"ANDROID","installationRegistrationID":"fcm-token-1"}"#)
            #expect(installed.status == .created)
            let id = try #require(installed.string("installationID"))
            #expect(
                try await client.call(.get, "\(client.app)/installations/ANDROID:fcm-token-1", token: user.token).status
                    == .ok)
            #expect(
                try await client.call(.get, "\(client.app)/installations/\(id)/mqtt-endpoint", token: user.token).status
                    == .badRequest)
            // Another user registering the same ID, later, neither hides the first user's
            // installation from it nor reaches it: each finds and deletes its own.
            let other = try await client.pseudoUser()
            let copied = try await client.call(
                .post, "\(client.app)/installations", token: other.token, contentType: Self.mediaType,
                body: #"{"deviceType":"ANDROID","installationRegistrationID":"fcm-token-1"}"#)
            let copiedID = try #require(copied.string("installationID"))
            for (token, expected) in [(user.token, id), (other.token, copiedID)] {
                let found = try await client.call(.get, "\(client.app)/installations/ANDROID:fcm-token-1", token: token)
                #expect(found.status == .ok)
                #expect(found.string("installationID") == expected)
            }
            // The admin, bound to no installation, finds either.
            let either = try await client.call(
                .get, "\(client.app)/installations/ANDROID:fcm-token-1", token: try await client.adminToken())
            #expect(either.status == .ok)
            #expect([id, copiedID].contains(either.string("installationID") ?? ""))
            #expect(
                try await client.call(.delete, "\(client.app)/installations/ANDROID:fcm-token-1", token: other.token)
                    .status == .noContent)
            #expect(
                try await client.call(.get, "\(client.app)/installations/\(id)", token: user.token).status == .ok)
            #expect(
                try await client.call(.delete, "\(client.app)/installations/ANDROID:fcm-token-1", token: user.token)
                    .status == .noContent)
            #expect(
                try await client.call(.get, "\(client.app)/installations/\(id)", token: user.token).status == .notFound)
        }
    }

    @Test("A device installing twice at once (an SDK's start racing its retry) gets one installation, not two")
    func racingInstallsOfOneDevice() async throws {
        let server = try await TestServer.make(push: true)
        try await server.run { client in
            let user = try await client.pseudoUser()
            let replies = try await allAtOnce(8) { _ in
                try await client.call(
                    .post, "\(client.app)/installations", token: user.token, contentType: Self.mediaType,
                    body: #"{"deviceType":"ANDROID","installationRegistrationID":"fcm-race"}"#)
            }
            #expect(replies.allSatisfy { $0.status == .created })
            let ids = Set(replies.compactMap { $0.string("installationID") })
            #expect(ids.count == 1, "\(ids)")
            let found = try await client.call(.get, "\(client.app)/installations/ANDROID:fcm-race", token: user.token)
            #expect(found.string("installationID") == ids.first)
            // Deleting it leaves no second one behind.
            #expect(
                try await client.call(.delete, "\(client.app)/installations/ANDROID:fcm-race", token: user.token)
                    .status == .noContent)
            #expect(
                try await client.call(.get, "\(client.app)/installations/ANDROID:fcm-race", token: user.token).status
                    == .notFound)
        }
    }

    @Test("Without push, an endpoint answers 503 MQTT_ENDPOINT_NOT_READY")
    func pushOff() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let user = try await client.pseudoUser()
            let installed = try await client.call(
                .post, "\(client.app)/installations", token: user.token, contentType: Self.mediaType,
                body: #"{"deviceType":"MQTT"}"#)
            let id = try #require(installed.string("installationID"))
            let endpoint = try await client.call(
                .get, "\(client.app)/installations/\(id)/mqtt-endpoint", token: user.token)
            #expect(endpoint.status == .serviceUnavailable)
            #expect(endpoint.errorCode == "MQTT_ENDPOINT_NOT_READY")
        }
    }
}
