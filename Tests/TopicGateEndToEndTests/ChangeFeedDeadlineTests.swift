import Foundation
import HTTPTypes
import ProcessSupport
import TestSupport
import Testing
import TopicGateCore

/// A gateway whose change feed goes silent (its LISTEN connection black-holed by a proxy, as a
/// firewall's idle timeout or a pooler leaves it) stops trusting its caches within the feed's
/// deadline: a revoke made through another gateway is enforced by it within 5 s. When the feed
/// is back, it trusts its caches again and hears changes at once.
@Suite("Fleet: a silent change feed")
struct ChangeFeedDeadlineTests {
    static let proxyScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Proxy/black_hole_proxy.py").path

    @Test("A revoke through gateway A is enforced by gateway B within 5 s while B's feed is black-holed")
    func silentFeed() async throws {
        let url = try await TestPostgres.shared.newDatabase()
        guard let components = URLComponents(string: url), let databasePort = components.port else {
            throw TestFailure("not a URL: \(url)")
        }
        let proxyPort = FreePort.next()
        let flag = TestFolder.url.appendingPathComponent("black-hole-\(UUID().uuidString)").path
        let proxy = try ChildProcess.spawn(
            executable: "/usr/bin/env",
            arguments: ["python3", Self.proxyScript, "\(proxyPort)", "\(databasePort)", flag],
            logPath: flag + ".log")
        defer {
            proxy.killNow()
            try? FileManager.default.removeItem(atPath: flag)
            try? FileManager.default.removeItem(atPath: flag + ".log")
        }
        // Python takes a while to start when the whole suite is starting beside it.
        #expect(try await eventually(timeout: .seconds(60)) { TCPProbe.accepts(host: "127.0.0.1", port: proxyPort) })
        var feed = components
        feed.port = proxyPort
        let feedURL = try #require(feed.string)

        let base = TestFolder.url.appendingPathComponent("feed-\(UUID().uuidString)").path
        let a = ServerProcess(dataDirectory: base + "-a", arguments: ["--database", url, "--broker", "none"])
        try await a.start()
        let b = ServerProcess(
            dataDirectory: base + "-b", arguments: ["--database", url, "--database-feed", feedURL, "--broker", "none"],
            credentialsOf: a)
        try await b.start()
        defer {
            Task {
                _ = try? await a.stop(signal: SIGTERM)
                _ = try? await b.stop(signal: SIGTERM)
            }
        }
        let admin = try await a.adminToken()
        let sender = try await a.normalUser("sender")
        let topic = "\(a.app)/topics/alerts"
        try await a.call(.put, topic, token: admin).expect(.noContent)
        let entry = "\(topic)/acl/SEND_MESSAGE_TO_TOPIC/UserID:\(sender.id)"
        try await a.call(.put, entry, token: admin).expect(.noContent)
        // B has the topic in its cache, with the grant.
        #expect(try await eventually { try await b.send(topic, token: sender.token).status == .created })
        #expect(try await b.send(topic, token: sender.token).status == .created)

        // The feed goes silent; the revoke is made through A.
        FileManager.default.createFile(atPath: flag, contents: nil)
        let revoked = ContinuousClock.now
        try await a.call(.delete, entry, token: admin).expect(.noContent)
        let enforced = try await eventually(timeout: .seconds(5)) {
            try await b.send(topic, token: sender.token).status == .forbidden
        }
        #expect(enforced, "B still allowed the send 5 s after the revoke, its feed silent")
        print("ChangeFeedDeadlineTests: refused through B \(ContinuousClock.now - revoked) after the revoke")
        // And it stays refused while the feed is silent: B reads through, and says so.
        for _ in 0..<3 { #expect(try await b.send(topic, token: sender.token).status == .forbidden) }
        func trusted() async throws -> Double? {
            PushMetricsTests.sample(try await b.metricsText(), "topicgate_caches_trusted")
        }
        #expect(try await trusted() == 0)

        // The feed is back: B trusts its caches again, and a new grant through A reaches it.
        try FileManager.default.removeItem(atPath: flag)
        try await a.call(.put, entry, token: admin).expect(.noContent)
        #expect(
            try await eventually(timeout: .seconds(20)) {
                try await b.send(topic, token: sender.token).status == .created
            })
        try await a.call(.delete, entry, token: admin).expect(.noContent)
        #expect(
            try await eventually(timeout: .seconds(5)) {
                try await b.send(topic, token: sender.token).status == .forbidden
            })
        // Trusting its caches again, not reading the database for ever: B's own word, and A's.
        #expect(try await eventually(timeout: .seconds(10)) { try await trusted() == 1 })
        #expect(PushMetricsTests.sample(try await a.metricsText(), "topicgate_caches_trusted") == 1)
    }
}
