import Foundation
import NIOHTTP1

/// sign-up: pseudo users created and password logins (bcrypt at the default cost) per second,
/// against MQTT connects through the plugin per second (what a device's credentials cost the
/// broker), and pseudo users against the durable bound (a minimal handler that stores a user and
/// its token in one transaction).
struct SignUpScenario {
    let world: BenchWorld
    let options: BenchOptions

    func run() async throws -> [BenchRow] {
        world.resetGatewayPeak()
        let connections = try await world.connections(options.concurrency)
        let (elapsed, gatewayCPU) = try await CPUSample.perRequest(world, requests: options.signUps) {
            let began = ContinuousClock.now
            try await concurrently(workers: options.concurrency, items: options.signUps) { worker, _ in
                _ = try await world.pseudoUser(connections[worker])
            }
            return ContinuousClock.now - began
        }
        let pseudoUsers = rate(options.signUps, elapsed)
        let bound = try await measureBound()

        _ = try await world.call(
            connections[0], .POST, "\(world.api)/users",
            contentType: "application/vnd.kii.RegistrationAndAuthorizationRequest+json",
            body: #"{"loginName":"bench-user","password":"bench-password"}"#, expected: 201)
        let loginsBegan = ContinuousClock.now
        try await concurrently(workers: options.concurrency, items: options.logins) { worker, _ in
            _ = try await world.call(
                connections[worker], .POST, "\(world.api)/oauth2/token",
                body: #"{"username":"bench-user","password":"bench-password"}"#, expected: 200)
        }
        let logins = rate(options.logins, ContinuousClock.now - loginsBegan)

        let topics = (0..<options.signUps).map {
            "bench\($0)x" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        }
        let passwords = topics.map(world.devicePassword)
        let connectsBegan = ContinuousClock.now
        try await concurrently(workers: options.concurrency, items: options.signUps) { _, index in
            let device = BenchDevice()
            try await device.connect(
                group: world.group, host: world.mqttHost, port: world.mqttPort, clientID: topics[index],
                username: topics[index],
                password: passwords[index])
            await device.close()
        }
        let connects = rate(options.signUps, ContinuousClock.now - connectsBegan)
        let peak = world.gatewayPeak
        await BenchWorld.close(connections)
        let boundRows =
            bound.map {
                [
                    BenchRow(
                        scenario: "sign-up", metric: "pseudo users created/s against the durable bound",
                        unit: "users/s", topicGate: pseudoUsers, baseline: $0.rate,
                        baselineName: "bound: a minimal handler storing a user and its token", gatewayPeakBytes: peak)
                ]
            } ?? []
        return boundRows
            + CPUSample.rows(
                scenario: "sign-up", what: "sign-up", gateway: gatewayCPU, bound: bound?.cpu,
                onPostgres: world.postgres, peak: peak) + [
                BenchRow(
                    scenario: "sign-up", metric: "pseudo users created/s", unit: "users/s", topicGate: pseudoUsers,
                    baseline: connects,
                    baselineName: "raw: MQTT connects through the plugin", gatewayPeakBytes: peak),
                BenchRow(
                    scenario: "sign-up", metric: "password logins/s (bcrypt cost 10)", unit: "logins/s",
                    topicGate: logins,
                    baseline: connects, baselineName: "raw: MQTT connects through the plugin", gatewayPeakBytes: peak),
            ]
    }

    /// As many sign-ups against `topicgate bench-bound`'s `POST /users`, with the same
    /// concurrency: users/s and the CPU each cost (nil when the bench did not start the gateway).
    func measureBound() async throws -> (rate: Double, cpu: CPUSample?)? {
        try await world.withBound(connections: options.concurrency) { open in
            let (elapsed, cpu) = try await CPUSample.perRequest(world, requests: options.signUps) {
                let began = ContinuousClock.now
                try await concurrently(workers: options.concurrency, items: options.signUps) { worker, _ in
                    let response = try await open[worker].send(.POST, "/users", body: "{}")
                    guard response.status == 201 else { throw BenchError("the bound answered \(response.status)") }
                }
                return ContinuousClock.now - began
            }
            return (rate(options.signUps, elapsed), cpu)
        }
    }
}
