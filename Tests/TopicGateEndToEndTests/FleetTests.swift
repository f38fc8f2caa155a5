import Foundation
import HTTPTypes
import ProcessSupport
import TestSupport
import Testing
import TopicGateBench
import TopicGateCore

/// Several `topicgate serve` processes on one PostgreSQL database, as a fleet behind a load
/// balancer runs them.
@Suite("Fleet: gateways sharing PostgreSQL")
struct FleetTests {
    /// Runs `body` with two gateways from `twoGateways`, and stops them afterwards, whether it
    /// threw or not.
    static func withTwoGateways(
        _ more: [String] = [], _ body: (ServerProcess, ServerProcess) async throws -> Void
    ) async throws {
        let (a, b) = try await twoGateways(more)
        do {
            try await body(a, b)
        } catch {
            _ = try? await a.stop(signal: SIGTERM)
            _ = try? await b.stop(signal: SIGTERM)
            throw error
        }
        _ = try? await a.stop(signal: SIGTERM)
        _ = try? await b.stop(signal: SIGTERM)
    }

    /// Two gateways on a new database, without a broker, with more `serve` flags; A starts
    /// first and creates the app.
    static func twoGateways(_ more: [String] = []) async throws -> (ServerProcess, ServerProcess) {
        let url = try await TestPostgres.shared.newDatabase()
        let base = TestFolder.url.appendingPathComponent("fleet-\(UUID().uuidString)").path
        let arguments = ["--database", url, "--broker", "none"] + more
        let a = ServerProcess(dataDirectory: base + "-a", arguments: arguments)
        try await a.start()
        let b = ServerProcess(dataDirectory: base + "-b", arguments: arguments, credentialsOf: a)
        try await b.start()
        return (a, b)
    }

    /// The window is measured and printed (for the README), not held to a time: on a loaded
    /// machine a request alone can take longer than the target.
    @Test("An entry revoked through gateway A refuses a send through gateway B (the window is measured)")
    func revocationReachesOtherGateway() async throws {
        try await Self.withTwoGateways { a, b in
            let admin = try await a.adminToken()
            let sender = try await a.normalUser("sender")
            let topic = "\(a.app)/topics/alerts"
            try await a.call(.put, topic, token: admin).expect(.noContent)
            let entry = "\(topic)/acl/SEND_MESSAGE_TO_TOPIC/UserID:\(sender.id)"
            var windows: [Duration] = []
            var allowedAfterRevoke = 0
            for round in 1...5 {
                try await a.call(.put, entry, token: admin).expect(.noContent)
                // Gateway B loads the topic (and caches it) while the entry is there.
                let allowed = try await waitFor(within: .seconds(2)) {
                    try await b.send(topic, token: sender.token, message: "r\(round)").status == .created
                }
                #expect(allowed != nil, "round \(round): the grant did not reach B")
                try await a.call(.delete, entry, token: admin).expect(.noContent)
                let refused = try await waitFor(within: .seconds(5)) {
                    let refused =
                        try await b.send(topic, token: sender.token, message: "late\(round)").status == .forbidden
                    if !refused { allowedAfterRevoke += 1 }
                    return refused
                }
                let window = try #require(refused, "round \(round): B still allowed the send 5 s after the revocation")
                windows.append(window)
            }
            let worst = windows.max()!
            print(
                "FleetTests: revoke through A → refused through B after \(windows.map { "\($0)" }); worst \(worst); "
                    + "\(allowedAfterRevoke) sends allowed after a revocation returned")
        }
    }

    @Test("Two gateways share one budget: sign-ups and login failures spent through A count on B")
    func sharedBudgets() async throws {
        try await Self.withTwoGateways(["--signup-limit", "4/h", "--login-failure-limit", "3/h"]) { a, b in
            for _ in 0..<2 { _ = try await a.pseudoUser() }
            for _ in 0..<2 { _ = try await b.pseudoUser() }
            // Four of four spent, two through each: the fifth is refused by either.
            for gateway in [a, b] {
                let refused = try await gateway.call(
                    .post, "\(gateway.app)/users", contentType: "application/vnd.kii.RegistrationRequest+json",
                    body: "{}")
                #expect(refused.status == .tooManyRequests)
            }
            // Login failures: two through A, one through B, then B refuses even the right password.
            for (gateway, password) in [(a, "wrong-1"), (a, "wrong-2"), (b, "wrong-3")] {
                let failed = try await gateway.call(
                    .post, "\(gateway.app)/oauth2/token", contentType: "application/json",
                    body: #"{"grant_type":"password","username":"nobody","password":"\#(password)"}"#)
                #expect(failed.status == .badRequest)
            }
            let spent = try await b.call(
                .post, "\(b.app)/oauth2/token", contentType: "application/json",
                body: #"{"grant_type":"password","username":"nobody","password":"wrong-4"}"#)
            #expect(spent.status == .tooManyRequests)
        }
    }

    @Test("PostgreSQL down: requests answer 503 with Retry-After within seconds, never hang; then work again")
    func databaseOutage() async throws {
        let database = try await PostgresServer.start()
        let directory = TestFolder.url.appendingPathComponent("fleet-\(UUID().uuidString)").path
        let gateway = ServerProcess(
            dataDirectory: directory, arguments: ["--database", database.url(), "--broker", "none"])
        try await gateway.start()
        do {
            let user = try await gateway.normalUser("before")

            await database.pause()
            let started = ContinuousClock.now
            let refused = try await gateway.call(.get, "\(gateway.app)/users/me", token: user.token)
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.object["errorCode"]?.stringValue == "RESOURCE_TEMPORARILY_UNAVAILABLE")
            #expect(refused.headers[.retryAfter] == "1")
            #expect(ContinuousClock.now - started < .seconds(30), "the request waited \(ContinuousClock.now - started)")
            let signup = try await gateway.call(
                .post, "\(gateway.app)/users", contentType: "application/vnd.kii.RegistrationRequest+json",
                body: #"{"loginName":"during","password":"password123"}"#)
            #expect(signup.status == .serviceUnavailable)
            #expect(try await gateway.call(.get, "/ready").status == .serviceUnavailable)

            try await database.resume()
            #expect(
                try await eventually(timeout: .seconds(30)) {
                    try await gateway.call(.get, "\(gateway.app)/users/me", token: user.token).status == .ok
                })
            _ = try await gateway.normalUser("after")
        } catch {
            _ = try? await gateway.stop(signal: SIGTERM)
            await database.stop()
            throw error
        }
        _ = try? await gateway.stop(signal: SIGTERM)
        await database.stop()
    }

    /// Polls `condition` until it holds; how long that took, or nil after `limit`.
    func waitFor(within limit: Duration, _ condition: () async throws -> Bool) async throws -> Duration? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < limit {
            if try await condition() { return ContinuousClock.now - start }
        }
        return nil
    }
}
