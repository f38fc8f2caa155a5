import Foundation
import ProcessSupport
import TestSupport
import Testing

/// `topicgate bench --quick` as a user runs it: every scenario prints its figure, its
/// baseline and the ratio (a check that the benchmark works, not a timed test). One run at a
/// time: each loads both cores.
@Suite("topicgate bench", .serialized)
struct BenchCommandTests {
    /// Runs `topicgate bench <arguments> --quick --json` and returns its rows.
    static func bench(_ arguments: [String], environment extra: [String: String] = [:]) async throws
        -> [[String: Any]]
    {
        let output = Pipe()
        let process = try ChildProcess.spawn(
            executable: ServerProcess.executable.path, arguments: ["bench", "--quick", "--json"] + arguments,
            environment: ProcessInfo.processInfo.environment.merging(extra) { $1 },
            output: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        // Read and wait on a thread of its own: a bench run lasts long enough to starve the
        // other suites if it held one of the few threads Swift's tasks share.
        let (data, status) = await withCheckedContinuation { (done: CheckedContinuation<(Data, Int32), Never>) in
            Thread.detachNewThread {
                let data = output.fileHandleForReading.readDataToEndOfFile()
                done.resume(returning: (data, process.waitBlocking()))
            }
        }
        #expect(status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(object["rows"] as? [[String: Any]])
    }

    @Test("A quick run prints every scenario with a baseline and a ratio, as JSON")
    func quickRun() async throws {
        let rows = try await Self.bench([])
        let scenarios = Set(rows.compactMap { $0["scenario"] as? String })
        #expect(
            scenarios == [
                "send → device", "fan-out 20", "commands", "authorization", "reads", "sign-up", "queries",
                "triggers", "statequeries", "connections", "memory",
            ])
        for row in rows {
            #expect((row["topicgate"] as? Double ?? 0) > 0, "\(row)")
            // Every row has its ratio but the HTTP ceiling, which is the others' baseline.
            if (row["baselineName"] as? String)?.contains("no baseline") != true {
                #expect((row["ratio"] as? Double ?? 0) > 0, "\(row)")
            }
        }
        #expect(rows.contains { $0["gatewayPeakBytes"] as? Int ?? 0 > 0 })
        // Sends, command round trips and sign-ups are also held against the minimal durable
        // handler.
        let bounded = rows.filter { ($0["baselineName"] as? String)?.hasPrefix("bound: ") == true }
        #expect(Set(bounded.compactMap { $0["scenario"] as? String }) == ["send → device", "commands", "sign-up"])
        #expect(bounded.allSatisfy { ($0["ratio"] as? Double ?? 0) > 0 })
    }
}

extension BenchCommandTests {
    @Test(
        "The connections scenario spreads its devices over several brokers and holder processes, and the one send reaches all of them"
    )
    func connectionsOverSeveralBrokers() async throws {
        let rows = try await Self.bench(["--only", "connections", "--connections", "90", "--devices-per-process", "30"])
        let metrics = Set(rows.compactMap { $0["metric"] as? String })
        #expect(
            metrics == [
                "connects/s, 90 held", "broker memory per connection", "broker memory per device with its subscription",
                "one send to all 90: time to the last device",
                "one send to all 90: deliveries/s",
                "gateway resident, 90 installations, 9 topics in use",
            ])
        // The gateway's memory with them, against the target.
        let memory = try #require(rows.first { $0["scenario"] as? String == "memory" })
        #expect(memory["baseline"] as? Double == 200 && memory["unit"] as? String == "MiB")
        #expect((memory["topicgate"] as? Double ?? 0) > 10)
        // Memory grows by whole pages: ninety devices may not move it.
        #expect(rows.filter { $0["unit"] as? String != "bytes" }.allSatisfy { ($0["ratio"] as? Double ?? 0) > 0 })
    }

    @Test("Against a given running gateway and broker")
    func givenGateway() async throws {
        let world = try await PushWorld.started()
        let credentials = try world.server.adminCredentials()
        let rows = try await Self.bench(
            [
                "--only", "send", "authorization", "--server", "http://127.0.0.1:\(world.server.port)", "--broker",
                "mqtt://127.0.0.1:\(world.broker.port)", "--mqtt-secret-file", world.broker.secretFile,
            ],
            environment: [
                "TOPICGATE_APP_ID": world.appID, "TOPICGATE_CLIENT_ID": credentials.clientID,
                "TOPICGATE_CLIENT_SECRET": credentials.clientSecret,
            ])
        #expect(Set(rows.compactMap { $0["scenario"] as? String }) == ["send → device", "authorization"])
        #expect(rows.allSatisfy { ($0["ratio"] as? Double ?? 0) > 0 })
        try await world.stop()
    }
}

extension BenchCommandTests {
    @Test(
        "A fleet of two gateways on one PostgreSQL and two brokers: a soak, then sends, commands and devices through all of them"
    )
    func fleet() async throws {
        let rows = try await Self.bench([
            "--gateways", "2", "--brokers", "2", "--soak", "5s", "--only", "send", "commands", "connections",
            "--connections", "60", "--devices-per-process", "30",
        ])
        #expect(
            Set(rows.compactMap { $0["scenario"] as? String }) == [
                "soak", "send → device", "commands", "connections", "memory",
            ])
        // Every row has its ratio but those without a baseline (with two brokers a round trip
        // has no bound: the phone and the thing sit on different brokers).
        let scenarios = rows.filter {
            $0["scenario"] as? String != "soak" && ($0["baselineName"] as? String)?.contains("no baseline") != true
        }
        #expect(scenarios.allSatisfy { ($0["ratio"] as? Double ?? 0) > 0 })
        // The one send reached the devices of both brokers (the scenario fails unless the
        // gateways put devices on each).
        #expect(rows.contains { $0["metric"] as? String == "one send to all 60: time to the last device" })
        // The bound runs on the same PostgreSQL.
        #expect(rows.contains { ($0["baselineName"] as? String)?.hasPrefix("bound: ") == true })

        // The soak: five intervals of a second, each with its throughput, p99 and memory.
        let soak = rows.filter { $0["scenario"] as? String == "soak" }
        let metrics = soak.compactMap { $0["metric"] as? String }
        #expect(metrics.filter { $0.hasPrefix("requests/s, ") }.count == 5)
        #expect(metrics.filter { $0.hasPrefix("p99, ") }.count == 5)
        #expect(metrics.filter { $0.hasPrefix("the 2 gateways' peak RSS, ") }.count == 5)
        #expect(metrics.contains("the 2 gateways' open descriptors at the end"))
        for row in soak where (row["metric"] as? String)?.hasPrefix("requests/s") == true {
            #expect((row["topicgate"] as? Double ?? 0) > 0, "\(row)")
        }
        // Every request answered as it should, and every push it owed arrived (a copy of one
        // counted apart).
        let answered = try #require(soak.first { $0["metric"] as? String == "requests answered as expected" })
        #expect(answered["ratio"] as? Double == 1)
        let pushes = try #require(soak.first { $0["metric"] as? String == "pushes the devices received" })
        #expect((pushes["baseline"] as? Double ?? 0) > 0)
        #expect(pushes["ratio"] as? Double == 1)
    }
}
