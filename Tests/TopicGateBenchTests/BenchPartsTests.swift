import NIOCore
import Testing

@testable import TopicGateBench

/// The benchmark's own parts: the MQTT wire, the sequence reader, percentiles, the table.
@Suite("Benchmark parts")
struct BenchPartsTests {
    @Test("CONNECT and SUBSCRIBE frames carry their remaining length, even past 127 bytes")
    func frames() {
        let connect = MQTTWire.connect(clientID: "c", username: "u", password: String(repeating: "p", count: 200))
        let bytes = Array(connect.readableBytesView)
        #expect(bytes[0] == 0x10)
        // Two length bytes: 10 (header) + 3 + 3 + 202 = 218 = 0xDA 0x01.
        #expect(Array(bytes[1...2]) == [0xDA, 0x01])
        #expect(bytes.count == 3 + 218)
        let subscribe = Array(MQTTWire.subscribe("t/x", packetID: 7).readableBytesView)
        #expect(subscribe == [0x82, 8, 0, 7, 0, 3, 0x74, 0x2F, 0x78, 0])
    }

    @Test("Incoming packets are read whole, and a partial one waits for the rest")
    func reading() {
        var buffer = ByteBuffer(bytes: [0x20, 0x02, 0x00, 0x05, 0x32])
        guard case .connectAcknowledged(let code)? = MQTTWire.read(&buffer) else {
            Issue.record("no CONNACK")
            return
        }
        #expect(code == 5)
        #expect(MQTTWire.read(&buffer) == nil)
        buffer.writeBytes([7, 0, 1, 0x61, 0x00, 0x2A] + Array("hi".utf8))
        guard case .publish(let topic, let payload, let packetID)? = MQTTWire.read(&buffer) else {
            Issue.record("no PUBLISH")
            return
        }
        #expect(topic == "a")
        #expect(packetID == 42)
        #expect(String(buffer: payload) == "hi")
        #expect(buffer.readableBytes == 0)
    }

    @Test("The sequence number is read from a push payload without parsing the rest")
    func sequence() {
        #expect(BenchPayload.sequence(in: Array(#"{"sender":"x","seq":1234,"when":1}"#.utf8)) == 1234)
        #expect(BenchPayload.sequence(in: Array(#"{"seq": 7}"#.utf8)) == 7)
        #expect(BenchPayload.sequence(in: Array(#"{"seq":"x"}"#.utf8)) == nil)
        #expect(BenchPayload.sequence(in: Array("{}".utf8)) == nil)
    }

    @Test("A command ID is read from a push payload; a baseline's payload is padded to TopicGate's size")
    func commandIDAndPadding() {
        let pushed = #"{"actions":[],"commandID":"c0ffee","issuer":"user:u"}"#
        #expect(BenchPayload.commandID(in: Array(pushed.utf8)) == "c0ffee")
        #expect(BenchPayload.commandID(in: Array(#"{"commandID":"unterminated"#.utf8)) == nil)
        #expect(BenchPayload.commandID(in: Array(#"{"command":"x"}"#.utf8)) == nil)
        #expect(BenchPayload.commandID(in: Array(#"{"commandID":""}"#.utf8)) == "")
        let padded = BenchPayload.padded(#"{"commandID":"raw1""#, to: 120)
        #expect(padded.count == 120)
        #expect(BenchPayload.commandID(in: padded) == "raw1")
        #expect(BenchPayload.padded(#"{"commandID":"raw1""#, to: 10) == Array(#"{"commandID":"raw1","pad":""}"#.utf8))
    }

    @Test("A soak names, for each kind of request, its highest p99 after the first interval against its first")
    func soakWorstP99ByKind() {
        func interval(_ sends: [Int], _ grants: [Int]) -> SoakLedger.Interval {
            var interval = SoakLedger.Interval()
            interval.latenciesByKind = [
                "send": sends.map { .milliseconds($0) }, "grant": grants.map { .milliseconds($0) },
            ]
            return interval
        }
        let intervals = [interval([10, 20], [5]), interval([30], [5]), interval([15], [40]), interval([12], [])]
        let worst = SoakLedger.worstLaterP99(intervals)
        #expect(worst.map(\.kind) == ["grant", "send"])
        #expect(worst.map(\.first) == [.milliseconds(5), .milliseconds(20)])
        #expect(worst.map(\.worst) == [.milliseconds(40), .milliseconds(30)])
        #expect(worst.map(\.at) == [2, 1])
        #expect(SoakLedger.worstLaterP99([interval([10], [5])]).isEmpty)
    }

    @Test("The host's share of the machine's CPU (steal) is read from /proc/stat between two samples")
    func stolenShare() throws {
        let before = try #require(MachineCPU(parsing: "cpu  100 0 50 800 10 0 5 0 0 0\ncpu0 50 0 25 400 5 0 2 0 0 0\n"))
        let after = try #require(MachineCPU(parsing: "cpu  160 0 70 900 10 0 5 55 0 0\n"))
        // 235 ticks passed, 55 of them stolen.
        #expect(after.stolenShare(since: before) == 55.0 / 235.0)
        #expect(before.stolenShare(since: before) == nil)
        #expect(MachineCPU(parsing: "cpu  1 2 3\n") == nil)
        #expect(MachineCPU(parsing: "intr 1 2 3 4 5 6 7 8\n") == nil)
        #expect(MachineCPU.now() != nil)
    }

    @Test("A paced soak worker's requests fall due one gap apart, offset from the other workers' within the gap")
    func soakPace() {
        let began = ContinuousClock.now
        // 4 workers offering 100 requests a second: each one every 40 ms.
        var first = SoakPace(rate: 100, worker: 0, workers: 4, began: began)
        var third = SoakPace(rate: 100, worker: 2, workers: 4, began: began)
        let late = began + .seconds(5)
        #expect(first.gap == .milliseconds(40))
        #expect(
            [first.nextDue(now: late), first.nextDue(now: late), first.nextDue(now: late)]
                == [began, began + .milliseconds(40), began + .milliseconds(80)])
        // Due when it was due, however late it is asked: a late request's latency counts the wait.
        #expect(third.nextDue(now: late) == began + .milliseconds(20))
        #expect(third.nextDue(now: late) == began + .milliseconds(60))
        var unpaced = SoakPace(rate: nil, worker: 1, workers: 4, began: began)
        #expect(unpaced.gap == nil)
        #expect(unpaced.nextDue(now: late) == late)
    }

    @Test(
        "CPU rows: the gateways' and PostgreSQL's per request against the bound's; without the bound (a fleet's devices on two brokers) the same rows with no baseline; none without the gateways'"
    )
    func cpuRows() {
        let gateway = CPUSample(gateways: .milliseconds(2), bound: .zero, database: .milliseconds(1))
        let bound = CPUSample(gateways: .zero, bound: .milliseconds(1), database: .milliseconds(0.5))
        let measured = CPUSample.rows(
            scenario: "commands", what: "round trip", gateway: gateway, bound: bound, onPostgres: true, peak: nil)
        #expect(measured.map(\.metric) == ["CPU per round trip: the gateways", "CPU per round trip: PostgreSQL"])
        #expect(measured.map(\.baseline) == [1, 0.5])
        let alone = CPUSample.rows(
            scenario: "commands", what: "round trip", gateway: gateway, bound: nil, onPostgres: true, peak: nil)
        #expect(alone.map(\.topicGate) == [2, 1])
        #expect(alone.allSatisfy { $0.baseline == nil && $0.baselineName.contains("no baseline") })
        #expect(
            CPUSample.rows(
                scenario: "commands", what: "round trip", gateway: nil, bound: bound, onPostgres: false, peak: nil
            )
            .isEmpty)
    }

    @Test("Percentiles by nearest rank")
    func percentiles() {
        let statistics = LatencyStatistics((1...1000).map { .milliseconds($0) })
        #expect(statistics.p50 == .milliseconds(500))
        #expect(statistics.p99 == .milliseconds(990))
        #expect(statistics.p999 == .milliseconds(999))
        #expect(LatencyStatistics([]).p99 == .zero)
    }

    @Test("The table shows the ratio TopicGate ÷ raw and marks a target")
    func table() {
        let rows = [
            BenchRow(
                scenario: "send", metric: "messages/s", unit: "msg/s", topicGate: 500, baseline: 1000,
                baselineName: "raw", gatewayPeakBytes: 50 * 1_048_576),
            BenchRow(
                scenario: "authorization", metric: "decisions/s", unit: "decisions/s", topicGate: 2_000_000,
                baseline: 1_000_000, baselineName: "target", gatewayPeakBytes: nil),
        ]
        let text = BenchReport.table(rows)
        #expect(text.contains("0.50×"))
        #expect(text.contains("2.00×"))
        #expect(text.contains("(target)"))
        #expect(text.contains("50 MiB"))
        // A unit that is a format directive is shown as it is.
        #expect(BenchReport.format(4.44, "%") == "4.4 %")
    }

    @Test("Runs combine into the run of the median ratio, with the lowest and highest ratio beside it")
    func repetitions() {
        func run(_ sendRate: Double, _ fanOut: [Double], _ query: Double) -> [BenchRow] {
            [
                BenchRow(
                    scenario: "send", metric: "messages/s", unit: "msg/s", topicGate: sendRate, baseline: 1000,
                    baselineName: "raw", gatewayPeakBytes: nil)
            ]
                + fanOut.map {
                    BenchRow(
                        scenario: "fan-out", metric: "deliveries/s", unit: "msg/s", topicGate: $0, baseline: 100,
                        baselineName: "raw", gatewayPeakBytes: nil)
                }
                + [
                    BenchRow(
                        scenario: "queries", metric: "median", unit: "ms", topicGate: query, baseline: nil,
                        baselineName: "(a time)", gatewayPeakBytes: nil)
                ]
        }
        let combined = BenchRow.combined([run(900, [50, 90], 8), run(700, [70, 80], 9), run(800, [60, 95], 7)])
        #expect(combined.count == 4)
        #expect(combined[0].topicGate == 800)
        #expect(combined[0].runs == 3)
        #expect(combined[0].spread == 0.7...0.9)
        // Rows of the same name are told apart by their place.
        #expect(combined[1].topicGate == 60)
        #expect(combined[1].spread == 0.5...0.7)
        #expect(combined[2].topicGate == 90)
        #expect(combined[2].spread == 0.8...0.95)
        // A row with no baseline: its own figure's median and range.
        #expect(combined[3].topicGate == 8)
        #expect(combined[3].spread == 7...9)
        let text = BenchReport.table(combined)
        #expect(text.contains("lowest–highest of 3 runs"))
        #expect(text.contains("0.70–0.90×"))
        #expect(text.contains("7.00 ms – 9.00 ms"))
        // One run: the rows as they are, with no spread column.
        let single = BenchRow.combined([run(900, [50], 8)])
        #expect(single.map(\.spread) == [nil, nil, nil])
        #expect(!BenchReport.table(single).contains("lowest–highest"))
    }
}
