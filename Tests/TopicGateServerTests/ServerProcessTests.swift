import Foundation
import HTTPTypes
import Testing
import TopicGateCore
import TopicGateServer
import TopicGateStore

/// The real executable: durability across `kill -9`, and a clean exit on SIGTERM.
@Suite("topicgate serve as a process", .serialized)
struct ServerProcessTests {
    @Test("Everything that returned 2xx is there after kill -9 and a restart")
    func survivesKill() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tg-kill-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = ServerProcess(dataDirectory: directory)
        try await server.start()
        let appID = try #require(try await openStore(configuration: ServerConfiguration(dataDirectory: directory)).apps().first?.id.rawValue)

        var tokens: [String] = []
        for index in 0..<20 {
            let created = try await server.request(
                .post, "/api/apps/\(appID)/users", contentType: "application/vnd.kii.RegistrationAndAuthorizationRequest+json",
                body: #"{"displayName":"user \#(index)"}"#)
            #expect(created.status == .created)
            tokens.append(try #require(created.object["_accessToken"]?.stringValue))
        }
        let group = try await server.request(
            .post, "/api/apps/\(appID)/groups", token: tokens[0], contentType: "application/json", body: #"{"name":"kept"}"#)
        #expect(group.status == .created)

        try await server.stop(signal: SIGKILL)
        try await server.start()
        for (index, token) in tokens.enumerated() {
            let me = try await server.request(.get, "/api/apps/\(appID)/users/me", token: token)
            #expect(me.status == .ok)
            #expect(me.object["displayName"] == JSONValue.string("user \(index)"))
        }
        let groupID = try #require(group.object["groupID"]?.stringValue)
        #expect(try await server.request(.get, "/api/apps/\(appID)/groups/\(groupID)", token: tokens[0]).status == .ok)
        try await server.stop(signal: SIGTERM)
    }

    @Test("SIGTERM and SIGINT stop the server cleanly with exit status 0")
    func gracefulShutdown() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tg-term-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for signal in [SIGTERM, SIGINT] {
            let server = ServerProcess(dataDirectory: directory)
            try await server.start()
            #expect(try await server.stop(signal: signal) == 0)
            #expect(!server.isRunning)
        }
    }
}
