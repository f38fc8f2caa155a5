import MQTTBridge
import Testing

@testable import TopicGateServer

/// How a broker link hands publications to its broker: alone, in fan-outs, or not at all.
@Suite("Publication plan")
struct PublicationPlanTests {
    /// An MQTT 3.1.1 PUBLISH packet's size with QoS 1, from the standard (§2.2, §3.3), not from
    /// the code under test: the fixed header's byte, the remaining length in 1–4 bytes, the
    /// topic's length (2) and the topic, the packet ID (2) and the payload.
    static func publishSize(topic: String, payload: Int) -> Int {
        let remaining = 2 + topic.utf8.count + 2 + payload
        let lengthBytes = remaining < 128 ? 1 : remaining < 16_384 ? 2 : remaining < 2_097_152 ? 3 : 4
        return 1 + lengthBytes + remaining
    }

    static func publications(_ payload: [UInt8], _ topics: [String]) -> [DevicePublication] {
        topics.map { DevicePublication(topic: $0, payload: payload) }
    }

    @Test("Without fan-outs each publication is its own PUBLISH; one over the limit is refused")
    func direct() {
        let small = Self.publications([1, 2, 3], ["dev-a", "dev-b"])
        let large = DevicePublication(topic: "dev-c", payload: Array(repeating: 7, count: 2_000))
        let plan = PublicationPlan(small + [large], fanOut: false, maximumPacketSize: 1_000)
        #expect(plan.steps == [.direct(0), .direct(1), .refused(2, packetSize: 2_012)])
    }

    @Test("A message's devices go in fan-outs of at most the topic cap and the packet limit, in order")
    func grouped() {
        let payload = Array("hello".utf8)
        let first = Self.publications(payload, (0..<2_500).map { "dev-\($0)" })
        let plan = PublicationPlan(first, fanOut: true, maximumPacketSize: 262_144, topicsPerFanOut: 1_000)
        #expect(
            plan.steps == [.fanOut(Array(0..<1_000)), .fanOut(Array(1_000..<2_000)), .fanOut(Array(2_000..<2_500))])
        // A small packet limit splits by size; every fan-out's packet stays within it.
        let limit = 300
        let tight = PublicationPlan(first, fanOut: true, maximumPacketSize: limit)
        var covered: [Int] = []
        for step in tight.steps {
            guard case .fanOut(let indices) = step else {
                Issue.record("unexpected \(step)")
                continue
            }
            let bytes = MQTTFanOut(payload: payload, topics: indices.map { first[$0].topic }).bytes
            #expect(Self.publishSize(topic: MQTTFanOut.topic, payload: bytes.count) <= limit)
            covered += indices
        }
        #expect(covered == Array(0..<2_500))
        #expect(tight.steps.count > 50)
    }

    @Test("Another payload starts another fan-out; what a fan-out cannot carry goes alone, in its place")
    func mixed() {
        let a = Self.publications([1], ["dev-a", "dev-b"])
        let b = Self.publications([2], ["dev-c"])
        let odd = DevicePublication(topic: "not/a/device", payload: [2])
        // Fits as a PUBLISH of its own, not with a fan-out's few bytes more.
        let edge = DevicePublication(topic: "dev-e", payload: Array(repeating: 9, count: 980))
        let tooLarge = DevicePublication(topic: "dev-f", payload: Array(repeating: 9, count: 1_000))
        let plan = PublicationPlan(
            a + b + [odd] + Self.publications([2], ["dev-d"]) + [edge, tooLarge], fanOut: true, maximumPacketSize: 1_000
        )
        #expect(
            plan.steps == [
                .fanOut([0, 1]), .fanOut([2]), .direct(3), .fanOut([4]), .direct(5), .refused(6, packetSize: 1_012),
            ])
    }

    @Test("With batches, the fan-outs of several messages share a PUBLISH within the caps; what goes alone splits them")
    func batched() {
        // Three sends of one group commit, to one device each, then one to three devices.
        let sends = (0..<3).flatMap { Self.publications(Array("send \($0)".utf8), ["dev-\($0)"]) }
        let wide = Self.publications(Array("wide".utf8), ["dev-a", "dev-b", "dev-c"])
        let odd = DevicePublication(topic: "not/a/device", payload: [2])
        let plan = PublicationPlan(
            sends + wide + [odd] + Self.publications([3], ["dev-d"]), fanOut: true, batches: true,
            maximumPacketSize: 262_144)
        #expect(plan.steps == [.fanOutBatch([[0], [1], [2], [3, 4, 5]]), .direct(6), .fanOutBatch([[7]])])
        // Without the plugin's batches: a fan-out a message.
        let unbatched = PublicationPlan(sends + wide, fanOut: true, batches: false, maximumPacketSize: 262_144)
        #expect(unbatched.steps == [.fanOut([0]), .fanOut([1]), .fanOut([2]), .fanOut([3, 4, 5])])
        // No batches without fan-outs.
        #expect(
            PublicationPlan(sends, fanOut: false, batches: true, maximumPacketSize: 262_144).steps == [
                .direct(0), .direct(1), .direct(2),
            ])

        // The topic cap and the packet limit hold for a batch as a whole, and every publication
        // is in one, in order.
        let many = (0..<2_000).flatMap { Self.publications(Array("message \($0)".utf8), ["dev-\($0)"]) }
        let capped = PublicationPlan(
            many, fanOut: true, batches: true, maximumPacketSize: 262_144, topicsPerFanOut: 300)
        for limit in [262_144, 1_000, 120] {
            let plan =
                limit == 262_144
                ? capped : PublicationPlan(many, fanOut: true, batches: true, maximumPacketSize: limit)
            var covered: [Int] = []
            for step in plan.steps {
                guard case .fanOutBatch(let fanOuts) = step else {
                    Issue.record("unexpected \(step)")
                    continue
                }
                let bytes = MQTTFanOutBatch(
                    fanOuts.map { MQTTFanOut(payload: many[$0[0]].payload, topics: $0.map { many[$0].topic }) }
                ).bytes
                #expect(Self.publishSize(topic: MQTTFanOut.topic, payload: bytes.count) <= limit)
                #expect(fanOuts.joined().count <= 300 || limit != 262_144)
                covered += fanOuts.joined()
            }
            #expect(covered == Array(0..<2_000), "limit \(limit)")
        }
        #expect(capped.steps.count == 7)
        // A publication that fits alone but not in a batch's few bytes more still goes alone.
        let edge = DevicePublication(topic: "dev-e", payload: Array(repeating: 9, count: 980))
        #expect(
            PublicationPlan([edge], fanOut: true, batches: true, maximumPacketSize: 1_000).steps == [.direct(0)])
    }
}
