import ArgumentParser
import TopicGateBench

/// `topicgate bench-hold`: a process of `topicgate bench` that holds a share of the connections
/// scenario's devices (not for use on its own).
struct BenchHoldCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-hold",
        abstract: "Holds a share of the devices of topicgate bench's connections scenario (lines on stdin and stdout).",
        shouldDisplay: false)

    func run() async throws { try await DeviceHolder.run() }
}
