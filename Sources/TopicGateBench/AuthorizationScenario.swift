import Foundation
import MQTTBridge
import NIOHTTP1
import TopicGateCore

/// authorization: `AccessPolicy.evaluate` in this process on one core (against the 1 000 000/s
/// target), and sends refused with 403 (the cost of saying no) against QoS 1 publishes the
/// broker's plugin refuses (a device publishing to another device's topic).
struct AuthorizationScenario {
    let world: BenchWorld
    let options: BenchOptions

    /// Decisions per second of the pure policy: a member of five groups on a group topic with a
    /// dozen entries, allowed through a group entry and denied after scanning them all, in turn.
    static func decisionsPerSecond(_ count: Int) -> Double {
        let groups = (0..<5).map { GroupID("group\($0)") }
        let member = AccessContext(principal: .user(UserID("member")), groups: Set(groups))
        let outsider = AccessContext(principal: .user(UserID("outsider")), groups: [GroupID("elsewhere")])
        let topic = Topic(
            appID: AppID("app"), address: TopicAddress(parsing: "group/group4/news")!,
            creator: .user(UserID("creator")),
            createdAt: 0)
        var entries = [
            ACLEntry(.subscribe, .group(groups[4]), isDefault: true),
            ACLEntry(.send, .group(groups[4]), isDefault: true),
        ]
        for index in 0..<10 {
            entries.append(ACLEntry(index % 2 == 0 ? .send : .subscribe, .user(UserID("user\(index)"))))
        }
        entries.sort()
        var allowed = 0
        let began = ContinuousClock.now
        for index in 0..<count {
            let decision = AccessPolicy.evaluate(index % 2 == 0 ? member : outsider, .send, on: topic, entries: entries)
            if decision.allowed { allowed += 1 }
        }
        let elapsed = ContinuousClock.now - began
        precondition(allowed == (count + 1) / 2, "the policy gave unexpected answers")
        return rate(count, elapsed)
    }

    func run() async throws -> [BenchRow] {
        world.resetGatewayPeak()
        let decisions = Self.decisionsPerSecond(options.decisions)

        let connections = try await world.connections(options.concurrency)
        let admin = try await world.adminToken(connections[0])
        let topic = "\(world.api)/topics/announcements"
        _ = try await world.call(connections[0], .PUT, topic, token: admin, expected: 204)
        let outsider = try await world.pseudoUser(connections[0])
        let refusedBegan = ContinuousClock.now
        try await concurrently(workers: options.concurrency, items: options.refusals) { worker, _ in
            let response = try await connections[worker].send(
                .POST, "\(topic)/push/messages", token: outsider.token,
                contentType: "application/vnd.kii.SendPushMessageRequest+json", body: #"{"data":{"seq":0}}"#)
            guard response.status == 403 else { throw BenchError("a forbidden send answered \(response.status)") }
        }
        let refused = rate(options.refusals, ContinuousClock.now - refusedBegan)

        // Raw: a device's QoS 1 publishes to another device's topic, refused by the plugin.
        let victim = try await world.install(connections[0], token: try await world.pseudoUser(connections[0]).token)
        let intruder = try await world.install(connections[0], token: outsider.token)
        let client = try MQTTClient(
            configuration: MQTTClientConfiguration(
                host: world.mqttHost, port: intruder.port, clientID: intruder.topic, username: intruder.username,
                password: intruder.password, maxInflightMessages: options.concurrency))
        try await client.connect(timeout: .seconds(10))
        let payload = Array(#"{"seq":0}"#.utf8)
        let rawBegan = ContinuousClock.now
        try await concurrently(workers: options.concurrency, items: options.refusals) { _, _ in
            try await client.publish(victim.topic, payload: payload)
        }
        let rawRefused = rate(options.refusals, ContinuousClock.now - rawBegan)
        let peak = world.gatewayPeak
        client.shutdown()
        await BenchWorld.close(connections)
        return [
            BenchRow(
                scenario: "authorization", metric: "policy decisions/s, one core", unit: "decisions/s",
                topicGate: decisions,
                baseline: 1_000_000, baselineName: "target", gatewayPeakBytes: nil),
            BenchRow(
                scenario: "authorization", metric: "sends refused with 403/s", unit: "req/s", topicGate: refused,
                baseline: rawRefused, baselineName: "raw: publishes the plugin refuses", gatewayPeakBytes: peak),
        ]
    }
}
