import Foundation
import ProcessSupport

/// One Mosquitto the bench's devices connect to: the bench gateway's embedded broker (no
/// process of the bench's own), or one the bench started from that broker's configuration (the
/// same plugin and MQTT secret) on a port and in a folder of its own, as a fleet's brokers are.
struct BenchBroker: Sendable {
    let port: Int
    let pid: pid_t?
    /// Nil for the bench gateway's embedded broker.
    let process: ChildProcess?

    /// A Mosquitto from `template` (an embedded broker's generated configuration) listening on a
    /// free loopback port, with its persistence, pid and revocations in `directory`.
    static func start(template: String, directory: String) async throws -> BenchBroker {
        guard let mosquitto = MosquittoExecutable.find() else { throw BenchError("mosquitto is not installed") }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let port = TCPProbe.freePort()
        let config = template.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            if line.hasPrefix("listener ") { return "listener \(port) 127.0.0.1" }
            if line.hasPrefix("pid_file ") { return "pid_file \(directory)/mosquitto.pid" }
            if line.hasPrefix("persistence_location ") { return "persistence_location \(directory)/" }
            if line.hasPrefix("plugin_opt_persistence_file ") {
                let file = line.split(separator: "/").last.map(String.init) ?? "mosquitto.db"
                return "plugin_opt_persistence_file \(directory)/\(file)"
            }
            if line.hasPrefix("plugin_opt_revocation_file ") {
                return "plugin_opt_revocation_file \(directory)/revocations"
            }
            // The folder is the bench's: the broker stays the user that can write it.
            if line.hasPrefix("user ") { return geteuid() == 0 ? "user root" : "" }
            return String(line)
        }.joined(separator: "\n")
        try config.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        let process = try ChildProcess.spawn(
            executable: mosquitto, arguments: ["-c", directory + "/mosquitto.conf"],
            logPath: directory + "/mosquitto.log")
        guard await TCPProbe.waitUntilAccepts(port: port, timeout: .seconds(10), alive: { process.isRunning }) else {
            _ = await process.stop()
            throw BenchError("a Mosquitto of the fleet did not start; see \(directory)/mosquitto.log")
        }
        return BenchBroker(port: port, pid: process.pid, process: process)
    }

    /// The `topicgate serve --broker` value naming `brokers` b0, b1, … in order.
    static func list(_ brokers: [BenchBroker]) -> String {
        brokers.enumerated().map { "mqtt://127.0.0.1:\($1.port)?name=b\($0)" }.joined(separator: ",")
    }

    func stop() async {
        if let process { _ = await process.stop() }
    }
}
