import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore
import TopicGateServer
import TopicGateStore

/// Browsers on another origin (CORS), through the real executable: errors keep their status
/// and Kii body when the request carries `Origin`, preflights allow what Kii's JavaScript SDK
/// sends, and `--cors-origins` limits who may read the answers.
@Suite("CORS: browsers on another origin")
struct CrossOriginTests {
    static let origin = "http://127.0.0.1:5500"

    func server(_ arguments: [String] = []) async throws -> (ServerProcess, String) {
        let directory = TestFolder.url.appendingPathComponent("tg-cors-\(UUID().uuidString)")
            .path
        let server = ServerProcess(dataDirectory: directory, arguments: ["--broker", "none"] + arguments)
        try await server.start()
        return (server, server.appID)
    }

    @Test("Every status and Kii error body is the same with and without Origin, with the CORS headers on errors")
    func errorsKeepTheirStatus() async throws {
        let (server, appID) = try await server()
        let cases: [(HTTPRequest.Method, String, String?)] = [
            (.get, "/api/apps/\(appID)/users/me", "not-a-token"),
            (.get, "/api/apps/\(appID)/no-such-route", nil),
            (.get, "/api/apps/no-such-app/users/me", nil),
            (.delete, "/api/apps/\(appID)/topics/none", "not-a-token"),
            (.post, "/api/oauth2/token", nil),
        ]
        for (method, path, token) in cases {
            let plain = try await server.call(method, path, token: token, contentType: "application/json", body: "{}")
            let cross = try await server.call(
                method, path, token: token, contentType: "application/json", body: "{}",
                headers: [.origin: Self.origin])
            #expect(plain.status.code >= 400 && plain.status.code < 500, "\(method) \(path)")
            #expect(cross.status == plain.status, "\(method) \(path)")
            #expect(cross.object == plain.object, "\(method) \(path)")
            #expect(cross.object["errorCode"] != nil || cross.object["error"] != nil, "\(method) \(path)")
            #expect(cross.headers[.accessControlAllowOrigin] == "*", "\(method) \(path)")
            #expect(plain.headers[.accessControlAllowOrigin] == nil)
        }
    }

    @Test("A preflight allows every method the API uses and the Kii SDK's headers; useful headers are exposed")
    func preflight() async throws {
        let (server, appID) = try await server()
        for method in ["PUT", "DELETE", "PATCH", "POST", "HEAD"] {
            let answer = try await server.call(
                .options, "/api/apps/\(appID)/topics/news",
                headers: [
                    .origin: Self.origin, .accessControlRequestMethod: method,
                    .accessControlRequestHeaders: "authorization, content-type, x-kii-appid, x-kii-appkey, x-kii-sdk",
                ])
            #expect(answer.status.code == 204)
            #expect(answer.headers[.accessControlAllowOrigin] == "*")
            let methods = (answer.headers[.accessControlAllowMethods] ?? "").split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(methods.contains(method))
            let headers = (answer.headers[.accessControlAllowHeaders] ?? "").lowercased()
            for header in ["authorization", "content-type", "x-kii-appid", "x-kii-appkey", "x-kii-sdk"] {
                #expect(headers.contains(header))
            }
        }
        let created = try await server.call(
            .post, "/api/apps/\(appID)/users",
            contentType: "application/vnd.kii.RegistrationAndAuthorizationRequest+json",
            body: "{}", headers: [.origin: Self.origin])
        #expect(created.status == .created)
        let exposed = (created.headers[.accessControlExposeHeaders] ?? "").lowercased()
        for header in ["location", "retry-after", "x-mqtt-ttl", "x-request-id"] { #expect(exposed.contains(header)) }
    }

    @Test("--cors-origins allows the listed origins only; others get the same answer without CORS headers")
    func allowedOrigins() async throws {
        let (server, appID) = try await server(["--cors-origins", "\(Self.origin),https://app.example.com"])
        let allowed = try await server.call(
            .get, "/api/apps/\(appID)/users/me", token: "bad", headers: [.origin: "https://app.example.com"])
        #expect(allowed.headers[.accessControlAllowOrigin] == "https://app.example.com")
        #expect(allowed.headers[.vary] == "Origin")
        let other = try await server.call(
            .get, "/api/apps/\(appID)/users/me", token: "bad", headers: [.origin: "https://evil.example.com"])
        #expect(other.status == allowed.status)
        #expect(other.headers[.accessControlAllowOrigin] == nil)
        let preflight = try await server.call(
            .options, "/api/apps/\(appID)/users",
            headers: [.origin: "https://evil.example.com", .accessControlRequestMethod: "POST"])
        #expect(preflight.headers[.accessControlAllowOrigin] == nil)
        #expect(preflight.headers[.accessControlAllowMethods] == nil)
    }

    @Test("A CORS origin list that is not origins is refused at start")
    func badOrigins() async throws {
        let policy = CrossOriginPolicy(parsing: "https://app.example.com/path")
        #expect(policy == nil)
        #expect(CrossOriginPolicy(parsing: "ftp://x") == nil)
        #expect(CrossOriginPolicy(parsing: " * ") == .anyOrigin)
        #expect(
            CrossOriginPolicy(parsing: "HTTPS://App.Example.com:8443")?.allowedOrigins == [
                "https://app.example.com:8443"
            ])
    }
}
