import Foundation
import NIOHTTP1

/// reads: the HTTP ceiling (`GET /health`: the gateway's HTTP stack, no token, no store) and an
/// authenticated read (`GET …/users/me` with a bearer token: the token's lookup and the user's
/// read), at the same concurrency over the same keep-alive connections, so that what the
/// framework costs and what TopicGate adds show apart.
struct ReadScenario {
    let world: BenchWorld
    let options: BenchOptions

    func run() async throws -> [BenchRow] {
        world.resetGatewayPeak()
        let connections = try await world.connections(options.concurrency)
        let user = try await world.pseudoUser(connections[0])
        let me = "\(world.api)/users/me"
        // Warm both paths (connections, caches) before the clock starts.
        for connection in connections {
            _ = try await connection.send(.GET, "/health")
            _ = try await connection.send(.GET, me, token: user.token)
        }
        let ceiling = try await measure(connections) { connection in
            try await connection.send(.GET, "/health")
        }
        let reads = try await measure(connections) { connection in
            try await connection.send(.GET, me, token: user.token)
        }
        let peak = world.gatewayPeak
        await BenchWorld.close(connections)
        return [
            BenchRow(
                scenario: "reads", metric: "GET /health/s (\(options.concurrency) concurrent)", unit: "req/s",
                topicGate: ceiling, baseline: nil, baselineName: "the HTTP ceiling (no baseline)",
                gatewayPeakBytes: peak),
            BenchRow(
                scenario: "reads", metric: "GET users/me with a token/s", unit: "req/s", topicGate: reads,
                baseline: ceiling, baselineName: "GET /health, same connections", gatewayPeakBytes: peak),
        ]
    }

    private func measure(
        _ connections: [BenchHTTPConnection],
        _ request: @escaping @Sendable (BenchHTTPConnection) async throws -> BenchHTTPConnection.Response
    ) async throws -> Double {
        try await requestsPerSecond(connections, items: options.reads, what: "a read") { connection, _ in
            try await request(connection)
        }
    }
}
