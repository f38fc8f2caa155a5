import Foundation
import HTTPTypes
import ProcessSupport
import TestSupport
import TopicGateCore

/// A real HAProxy (Debian's package) in front of gateways, as an operator runs a fleet: round
/// robin, an active health check on `GET /ready` every 200 ms (a gateway that answers 503 twice
/// is out, two 200s bring it back; a check may take 2 s on a loaded machine), and a request
/// whose connection to a gateway failed is sent to another. Requests through it are a `KiiAPI` of the gateways' app.
final class LoadBalancer: KiiAPI, @unchecked Sendable {
    // @unchecked: the process is set once, by `start`, before any request.
    let port = FreePort.next()
    let directory: String
    let gateways: [ServerProcess]
    private var process: ChildProcess?

    init(_ gateways: [ServerProcess]) {
        self.gateways = gateways
        directory = TestFolder.url.appendingPathComponent("haproxy-\(UUID().uuidString)").path
    }

    var appID: String { gateways[0].appID }

    func adminCredentials() async throws -> (clientID: String, clientSecret: String) {
        try gateways[0].adminCredentials()
    }

    /// The configuration: what an operator would write for a TopicGate fleet.
    var configuration: String {
        """
        global
            log stdout format raw local0 notice
        defaults
            mode http
            log global
            timeout connect 2s
            timeout client 30s
            timeout server 30s
            retries 3
            option redispatch
            retry-on conn-failure empty-response response-timeout
        frontend api
            bind 127.0.0.1:\(port)
            default_backend gateways
        backend gateways
            balance roundrobin
            option httpchk GET /ready
            http-check expect status 200
            timeout check 2s
            default-server inter 200ms fall 2 rise 2
        \(gateways.enumerated().map { "    server g\($0.offset) 127.0.0.1:\($0.element.port) check" }.joined(separator: "\n"))

        """
    }

    func start() async throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try configuration.write(toFile: directory + "/haproxy.cfg", atomically: true, encoding: .utf8)
        let started = try ChildProcess.spawn(
            executable: "/usr/sbin/haproxy", arguments: ["-f", directory + "/haproxy.cfg", "-db"],
            logPath: directory + "/haproxy.log")
        process = started
        guard await TCPProbe.waitUntilAccepts(port: port, timeout: .seconds(10), alive: { started.isRunning }) else {
            throw TestFailure(
                "HAProxy did not start: \((try? String(contentsOfFile: directory + "/haproxy.log", encoding: .utf8)) ?? "")"
            )
        }
    }

    func stop() async {
        if let process { _ = await process.stop() }
        try? FileManager.default.removeItem(atPath: directory)
    }

    func execute(
        _ method: HTTPRequest.Method, _ path: String, token: String?, contentType: String?, body: String?,
        headers: HTTPFields
    ) async throws -> APIReply {
        try await ServerProcess.execute(
            port: port, method, path, token: token, contentType: contentType, body: body, headers: headers)
    }
}
