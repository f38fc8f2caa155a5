import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore

/// Several `topicgate serve` processes on one PostgreSQL database, as a fleet behind a load
/// balancer runs them.
@Suite("Fleet: gateways sharing PostgreSQL")
struct FleetTests {
    /// Two gateways on a new database, without a broker; A starts first and creates the app.
    static func twoGateways() async throws -> (ServerProcess, ServerProcess) {
        let url = try await TestPostgres.shared.newDatabase()
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(UUID().uuidString)").path
        let arguments = ["--database", url, "--broker", "none"]
        let a = ServerProcess(dataDirectory: base + "-a", arguments: arguments)
        try await a.start()
        let b = ServerProcess(dataDirectory: base + "-b", arguments: arguments, credentialsOf: a)
        try await b.start()
        return (a, b)
    }

    @Test("An entry revoked through gateway A refuses a send through gateway B within 100 ms")
    func revocationReachesOtherGateway() async throws {
        let (a, b) = try await Self.twoGateways()
        defer {
            Task {
                try? await a.stop(signal: SIGTERM)
                try? await b.stop(signal: SIGTERM)
            }
        }
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
            let refused = try await waitFor(within: .seconds(2)) {
                let refused = try await b.send(topic, token: sender.token, message: "late\(round)").status == .forbidden
                if !refused { allowedAfterRevoke += 1 }
                return refused
            }
            let window = try #require(refused, "round \(round): B still allowed the send 2 s after the revocation")
            windows.append(window)
        }
        let worst = windows.max()!
        print(
            "FleetTests: revoke through A → refused through B after \(windows.map { "\($0)" }); worst \(worst); "
                + "\(allowedAfterRevoke) sends allowed after a revocation returned")
        #expect(worst < .milliseconds(100))
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
