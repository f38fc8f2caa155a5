import MQTTBridge
import Testing
import TopicGateAuthCore

/// The plugin's reading of the gateway's fan-outs (`MQTTFanOut`) and of its features request.
@Suite("Plugin: fan-outs and features")
struct FanOutTests {
    final class Published {
        var topics: [String] = []
        var payloads: [[UInt8]] = []
    }

    /// What the plugin would publish for `bytes`: the count `tg_fanout_each` returns, and each call.
    static func read(_ bytes: [UInt8]) -> (Int, Published) {
        let published = Published()
        let count = bytes.withUnsafeBytes { raw in
            tg_fanout_each(
                raw.baseAddress, raw.count,
                { topic, payload, length, context in
                    let box = Unmanaged<Published>.fromOpaque(context!).takeUnretainedValue()
                    box.topics.append(String(cString: topic!))
                    box.payloads.append(Array(UnsafeRawBufferPointer(start: payload, count: length)))
                }, Unmanaged.passUnretained(published).toOpaque())
        }
        return (count, published)
    }

    @Test("The gateway's fan-out is read back as its payload for each of its topics, in order")
    func roundTrip() {
        let payload = Array(#"{"message":"hello"}"#.utf8)
        let topics = (0..<300).map { "dev-\($0)" } + [String(repeating: "x", count: 128), "A.b_c-9"]
        let (count, published) = Self.read(MQTTFanOut(payload: payload, topics: topics).bytes)
        #expect(count == topics.count)
        #expect(published.topics == topics)
        #expect(published.payloads.allSatisfy { $0 == payload })
        // An empty payload is a payload.
        let (one, empty) = Self.read(MQTTFanOut(payload: [], topics: ["dev-a"]).bytes)
        #expect(one == 1 && empty.topics == ["dev-a"] && empty.payloads == [[]])
    }

    @Test(
        "A malformed fan-out reaches no device: each is refused whole",
        arguments: [
            ("no topic", MQTTFanOut(payload: [1, 2], topics: []).bytes),
            ("a wildcard", MQTTFanOut(payload: [1], topics: ["dev-a", "#"]).bytes),
            ("a level separator", MQTTFanOut(payload: [1], topics: ["dev-a", "dev-b/state"]).bytes),
            ("a $SYS topic", MQTTFanOut(payload: [1], topics: ["$SYS"]).bytes),
            ("a topic of 129", MQTTFanOut(payload: [1], topics: ["dev-a", String(repeating: "y", count: 129)]).bytes),
            ("an empty topic", MQTTFanOut(payload: [1], topics: ["dev-a"]).bytes + [0]),
            ("a topic cut short", MQTTFanOut(payload: [1], topics: ["dev-a"]).bytes + [5, 0x61, 0x62]),
            ("a NUL inside a topic", [1, 0, 0, 0, 0, 3, 0x61, 0, 0x62]),
            ("a payload cut short", [1, 0, 0, 0, 9, 1, 2, 3]),
            ("another version", [3] + Array(MQTTFanOut(payload: [1], topics: ["dev-a"]).bytes.dropFirst())),
            ("nothing", []),
            ("a length alone", [1, 0, 0]),
        ] as [(String, [UInt8])])
    func malformed(_ name: String, bytes: [UInt8]) {
        let (count, published) = Self.read(bytes)
        #expect(count == -1, "\(name)")
        #expect(published.topics.isEmpty, "\(name)")
    }

    @Test("A batch of fan-outs is read back as each payload for each of its own topics, in order")
    func batch() {
        let first = MQTTFanOut(payload: Array(#"{"seq":1}"#.utf8), topics: ["dev-a", "dev-b"])
        let second = MQTTFanOut(payload: [], topics: ["dev-c"])
        let third = MQTTFanOut(
            payload: Array(repeating: 7, count: 300), topics: (0..<300).map { "dev-\($0)" } + ["dev-a"])
        let (count, published) = Self.read(MQTTFanOutBatch([first, second, third]).bytes)
        #expect(count == 304)
        #expect(published.topics == first.topics + second.topics + third.topics)
        #expect(
            published.payloads
                == [first.payload, first.payload, second.payload] + Array(repeating: third.payload, count: 301))
        let (one, alone) = Self.read(MQTTFanOutBatch([first]).bytes)
        #expect(one == 2 && alone.topics == first.topics)
    }

    /// A batch whose first fan-out is well formed, so that a reader that delivered as it read
    /// would have delivered it.
    static let goodFirst = MQTTFanOutBatch([MQTTFanOut(payload: [1], topics: ["dev-a"])]).bytes

    @Test(
        "A malformed batch of fan-outs reaches no device, not even through its well-formed fan-outs",
        arguments: [
            ("no fan-out", [2]),
            ("a fan-out of no topic", MQTTFanOutBatch([MQTTFanOut(payload: [1], topics: [])]).bytes),
            (
                "a wildcard in the second",
                MQTTFanOutBatch([
                    MQTTFanOut(payload: [1], topics: ["dev-a"]), MQTTFanOut(payload: [2], topics: ["dev-b", "#"]),
                ]).bytes
            ),
            (
                "a level separator in the second",
                MQTTFanOutBatch([
                    MQTTFanOut(payload: [1], topics: ["dev-a"]), MQTTFanOut(payload: [2], topics: ["dev-b/state"]),
                ]).bytes
            ),
            ("more topics counted than there are", Self.goodFirst + [0, 0, 0, 1, 9, 0, 2, 5] + Array("dev-b".utf8)),
            (
                "fewer topics counted than there are",
                Self.goodFirst + [0, 0, 0, 1, 9, 0, 1, 5] + Array("dev-b".utf8)
                    + [5] + Array("dev-c".utf8)
            ),
            ("a payload cut short", Self.goodFirst + [0, 0, 0, 9, 1, 2]),
            ("a count cut short", Self.goodFirst + [0, 0, 0, 1, 9, 0]),
            ("a length cut short", Self.goodFirst + [0, 0]),
            ("a payload longer than the packet", Self.goodFirst + [0xFF, 0xFF, 0xFF, 0xFF, 1, 0, 1]),
            ("a NUL inside a topic", Self.goodFirst + [0, 0, 0, 0, 0, 1, 3, 0x61, 0, 0x62]),
        ] as [(String, [UInt8])])
    func malformedBatch(_ name: String, bytes: [UInt8]) {
        let (count, published) = Self.read(bytes)
        #expect(count == -1, "\(name)")
        #expect(published.topics.isEmpty, "\(name)")
    }

    static func nonce(_ json: String) -> String? {
        var nonce = [CChar](repeating: 0, count: 65)
        let found = Array(json.utf8).withUnsafeBytes {
            tg_control_features_nonce($0.baseAddress, $0.count, &nonce, nonce.count)
        }
        return found ? String(decoding: nonce.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
    }

    @Test("A features request is answered with its own nonce; nonces that could not be echoed safely are ignored")
    func features() {
        let request = String(decoding: MQTTControlMessage.presenceAndFeaturesRequest(nonce: "a1b2c3"), as: UTF8.self)
        #expect(Self.nonce(request) == "a1b2c3")
        #expect(tg_control_asks_presence(Array(request.utf8), request.utf8.count))
        #expect(Self.nonce(#"{"commands":[{"command":"presence"}]}"#) == nil)
        #expect(Self.nonce(#"{"commands":[{"command":"features"}]}"#) == nil)
        #expect(Self.nonce(#"{"commands":[{"command":"features","nonce":"a\"}"}]}"#) == nil)
        #expect(Self.nonce(#"{"commands":[{"command":"features","nonce":""}]}"#) == nil)
        #expect(
            Self.nonce(#"{"commands":[{"command":"features","nonce":"\#(String(repeating: "n", count: 65))"}]}"#) == nil
        )
        #expect(Self.nonce("not json") == nil)
        // What the plugin answers is what the gateway reads.
        let answer = PluginFeatures(payload: Array(#"{"features":["fanOut"],"nonce":"a1b2c3"}"#.utf8))
        #expect(answer?.fanOut == true && answer?.nonce == "a1b2c3")
        #expect(PluginFeatures(payload: Array(#"{"connected":"dev-a"}"#.utf8)) == nil)
        let current = PluginFeatures(payload: Array(#"{"features":["fanOut","routed"],"nonce":"n"}"#.utf8))
        #expect(current?.routed == true && answer?.routed == false && current?.saved == false)
        let saving = PluginFeatures(payload: Array(#"{"features":["fanOut","routed","saved"],"nonce":"n"}"#.utf8))
        #expect(saving?.saved == true && saving?.fanOutBatches == false)
        let batching = PluginFeatures(payload: Array(#"{"features":["fanOut","fanOutBatches"],"nonce":"n"}"#.utf8))
        #expect(batching?.fanOutBatches == true)
    }

    static func barrier(_ json: String) -> String? {
        var id = [CChar](repeating: 0, count: 65)
        let found = Array(json.utf8).withUnsafeBytes { tg_control_barrier_id($0.baseAddress, $0.count, &id, id.count) }
        return found ? String(decoding: id.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
    }

    @Test(
        "A routing barrier is read with its ID, answered as the gateway reads it; IDs that could not be echoed are ignored"
    )
    func barriers() {
        #expect(Self.barrier(String(decoding: MQTTControlMessage.barrier(id: "a1b2x7"), as: UTF8.self)) == "a1b2x7")
        #expect(Self.barrier(#"{"commands":[{"command":"barrier"}]}"#) == nil)
        #expect(Self.barrier(#"{"commands":[{"command":"barrier","id":"a\"}"}]}"#) == nil)
        #expect(
            Self.barrier(#"{"commands":[{"command":"barrier","id":"\#(String(repeating: "b", count: 65))"}]}"#) == nil)
        #expect(Self.barrier(#"{"commands":[{"command":"features","nonce":"n"}]}"#) == nil)
        #expect(
            RoutingReceipt(payload: Array(#"{"routed":"a1b2x7"}"#.utf8)) == RoutingReceipt(id: "a1b2x7", saved: false))
        #expect(
            RoutingReceipt(payload: Array(#"{"saved":"a1b2x8"}"#.utf8)) == RoutingReceipt(id: "a1b2x8", saved: true))
        #expect(RoutingReceipt(payload: Array(#"{"features":["fanOut"],"nonce":"n"}"#.utf8)) == nil)
        #expect(PluginFeatures(payload: Array(#"{"routed":"a1b2x7"}"#.utf8)) == nil)
    }
}
