import ArgumentParser
import Foundation
import TopicGateBench

/// `topicgate bench`: what TopicGate costs on this machine, next to the Mosquitto under it.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure TopicGate against raw Mosquitto in the same run (starts its own gateway and broker).")

    @Flag(help: "A small run that only shows every scenario works (seconds, not minutes).") var quick = false
    @Flag(help: "Print JSON instead of a table.") var json = false
    @Option(help: "Messages in the send → device scenario.") var messages: Int?
    @Option(help: "Concurrent HTTP requests (keep-alive connections).") var concurrency: Int?
    @Option(help: "Devices held in the connections scenario.") var connections: Int?
    @Option(
        parsing: .upToNextOption,
        help: "Only these scenarios: send, fanout, commands, authorization, signup, connections.")
    var only: [String] = []

    func run() async throws {
        var options: BenchOptions = quick ? .quick : .standard
        if let messages { options.messages = messages }
        if let concurrency { options.concurrency = max(1, concurrency) }
        if let connections { options.connections = connections }
        options.only = Set(only)
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        let runner = BenchRunner(executable: executable, options: options) { step in
            FileHandle.standardError.write(Data("bench: \(step)…\n".utf8))
        }
        let rows = try await runner.run()
        print(json ? try BenchReport.json(rows) : BenchReport.table(rows))
    }
}
