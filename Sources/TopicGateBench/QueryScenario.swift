import Foundation
import NIOHTTP1
import Synchronization

/// queries: Kii's user query over an app of `options.queryUsers` users (pseudo users with a
/// display name each): one user by `eq` on its display name, and a page of 10 by `prefix`,
/// each as the admin asks, against `GET /health` on the same connections (the HTTP ceiling);
/// and the median time of one query, which the indexes keep to milliseconds however many users
/// the app has.
struct QueryScenario {
    let world: BenchWorld
    let options: BenchOptions

    func run() async throws -> [BenchRow] {
        world.resetGatewayPeak()
        let connections = try await world.connections(options.concurrency)
        try await concurrently(workers: options.concurrency, items: options.queryUsers) { worker, index in
            _ = try await world.call(
                connections[worker], .POST, "\(world.api)/users",
                contentType: "application/vnd.kii.RegistrationAndAuthorizationRequest+json",
                body: #"{"displayName":"bench-\#(index)"}"#, expected: 201)
        }
        let admin = try await world.adminToken(connections[0])
        let users = options.queryUsers
        @Sendable func query(_ clause: String, limit: Int) -> String {
            #"{"userQuery":{"clause":\#(clause),"orderBy":"displayName"},"bestEffortLimit":\#(limit)}"#
        }
        let path = "\(world.api)/users/query"
        let media = "application/vnd.kii.UserQueryRequest+json"
        @Sendable func equality(_ index: Int) -> String {
            query(#"{"type":"eq","field":"displayName","value":"bench-\#(index % users)"}"#, limit: 10)
        }
        @Sendable func prefix(_ index: Int) -> String {
            query(#"{"type":"prefix","field":"displayName","prefix":"bench-\#(index % users)"}"#, limit: 10)
        }
        for connection in connections { _ = try await connection.send(.GET, "/health") }
        let ceiling = try await measure(connections) { connection, _ in try await connection.send(.GET, "/health") }
        let latencies = Mutex<[Duration]>([])
        let equalities = try await measure(connections) { connection, index in
            let began = ContinuousClock.now
            let response = try await connection.send(
                .POST, path, token: admin, contentType: media, body: equality(index))
            let took = ContinuousClock.now - began
            latencies.withLock { $0.append(took) }
            return response
        }
        let prefixes = try await measure(connections) { connection, index in
            try await connection.send(.POST, path, token: admin, contentType: media, body: prefix(index))
        }
        let median = LatencyStatistics(latencies.withLock { $0 }).p50
        let peak = world.gatewayPeak
        await BenchWorld.close(connections)
        let over = "over \(users) users"
        return [
            BenchRow(
                scenario: "queries", metric: "user query, eq displayName, \(over)/s", unit: "req/s",
                topicGate: equalities, baseline: ceiling, baselineName: "GET /health, same connections",
                gatewayPeakBytes: peak),
            BenchRow(
                scenario: "queries", metric: "user query, eq displayName, \(over): median", unit: "ms",
                topicGate: median.milliseconds, baseline: nil, baselineName: "(a time, no baseline)",
                gatewayPeakBytes: peak),
            BenchRow(
                scenario: "queries", metric: "user query, prefix displayName, a page of 10, \(over)/s", unit: "req/s",
                topicGate: prefixes, baseline: ceiling, baselineName: "GET /health, same connections",
                gatewayPeakBytes: peak),
        ]
    }

    private func measure(
        _ connections: [BenchHTTPConnection],
        _ request: @escaping @Sendable (BenchHTTPConnection, Int) async throws -> BenchHTTPConnection.Response
    ) async throws -> Double {
        try await requestsPerSecond(connections, items: options.queries, what: "a query", request)
    }
}
