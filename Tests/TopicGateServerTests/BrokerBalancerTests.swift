import Foundation
import TestSupport
import Testing
import TopicGateCore
import TopicGateStore

@testable import TopicGateServer

/// Where new installations go when devices are spread over several brokers.
@Suite("Broker balancer")
struct BrokerBalancerTests {
    static let directory = BrokerDirectory(
        brokers: ["a", "b"].map {
            BrokerAddress(
                name: $0, host: "127.0.0.1", port: 1883, publicHost: "\($0).example.com",
                publicPorts: MQTTPorts(tcp: 1883, ssl: 0, ws: 0, wss: 0))
        })

    /// An embedded store with `counts` live installations on each broker (its folder is removed
    /// after the test).
    static func store(_ counts: [String: Int]) async throws -> (SQLiteStore, AppID, String) {
        let path = TestFolder.url.appendingPathComponent("balancer-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let store = try SQLiteStore(path: path + "/topicgate.sqlite")
        let (app, _) = try await AppRegistry(store: store).defaultApp()
        for (broker, count) in counts {
            for index in 0..<count { try await insert(store, app: app.id, id: "\(broker)\(index)", broker: broker) }
        }
        return (store, app.id, path)
    }

    static func insert(_ store: SQLiteStore, app: AppID, id: String, broker: String) async throws {
        try await store.insertInstallation(
            Installation(
                id: InstallationID(id), appID: app, principal: .user(UserID("u")), deviceType: "MQTT",
                registrationID: id, mqttTopic: "topic-\(id)", development: false, createdAt: UnixMillis(1),
                tokenHash: nil, broker: broker))
    }

    @Test("On the embedded store the counts are read once and then kept: each assignment counts, no scan per device")
    func keepsCounts() async throws {
        let (store, app, path) = try await Self.store(["a": 3, "b": 1])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let balancer = BrokerBalancer(directory: Self.directory, store: store, recount: .seconds(3600))
        #expect(try await balancer.assign() == "b")
        #expect(try await balancer.assign() == "b")
        // Rows the balancer did not assign are not seen before the recount: it did not count again.
        for index in 0..<5 { try await Self.insert(store, app: app, id: "late\(index)", broker: "a") }
        #expect(try await balancer.assign() == "a")
        #expect(try await balancer.assign() == "b")
    }

    @Test("Once the recount interval has passed the store is counted again (revoked devices free their broker)")
    func recounts() async throws {
        let (store, app, path) = try await Self.store(["a": 2, "b": 2])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let balancer = BrokerBalancer(directory: Self.directory, store: store, recount: .zero)
        #expect(try await balancer.assign() == "a")
        _ = try await store.revokeInstallations(appID: app, .one(InstallationID("b0")), now: 2)
        _ = try await store.revokeInstallations(appID: app, .one(InstallationID("b1")), now: 2)
        #expect(try await balancer.assign() == "b")
        #expect(try await balancer.assign() == "b")
    }
}
