import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ProcessSupport
import TestSupport
import TopicGateCore

/// `topicgate serve` as a child process on a free port, for tests that kill and restart it.
/// Its API helpers are `KiiAPI`'s, in the default app.
final class ServerProcess: KiiAPI, @unchecked Sendable {
    // @unchecked: `process` is only touched by the test that owns this object, one call at a time.
    let port: Int
    /// The embedded broker's port (when no `--broker` is among `arguments`).
    let mqttPort: Int
    /// MQTT over WebSockets, relayed by the gateway (unless `arguments` names another).
    let webSocketPort: Int
    let dataDirectory: String
    /// Extra `serve` flags, e.g. `--broker mqtt://127.0.0.1:port`.
    let arguments: [String]
    let executablePath: String
    /// Its standard error goes to `errorPath`, apart from its output (else both to `outputPath`).
    let separateErrors: Bool
    private var process: ChildProcess?
    /// The running server's process ID (to watch it from outside: strace, /proc).
    var pid: pid_t? { process?.pid }

    /// The executable the package built beside the tests.
    static var executable: URL { URL(fileURLWithPath: BuildProducts.path("topicgate")) }

    /// The default app, as its first start printed it.
    var appID: String { (try? printedValue("appID")) ?? "" }

    /// Where the app credentials were printed: this server's output, or that of the gateway
    /// that created the shared database's default app.
    let credentialsPath: String

    /// `credentialsOf`: another gateway on the same database, whose first start printed the
    /// default app's credentials.
    /// `executable`: another `topicgate` than the one the package built (an installed copy).
    init(
        dataDirectory: String, arguments: [String] = [], credentialsOf other: ServerProcess? = nil,
        executable: String? = nil, separateErrors: Bool = false
    ) {
        self.separateErrors = separateErrors
        self.executablePath = executable ?? Self.executable.path
        self.credentialsPath = other?.outputPath ?? dataDirectory + ".stdout"
        self.port = FreePort.next()
        self.mqttPort = FreePort.next()
        self.webSocketPort = FreePort.next()
        self.dataDirectory = dataDirectory
        self.arguments = arguments
    }

    /// Starts the server and waits until it answers HTTP.
    func start() async throws {
        try await startWithoutProbe()
        guard let process else { return }
        // Generous: on a loaded 2-core CI machine with other servers starting in parallel, a
        // debug build's first start (migrations, the default app) can take several seconds.
        // The probe runs on a thread of its own: the test process's task threads can be busy
        // for tens of seconds while hundreds of tests set up at once, and a probe that waited
        // for one of them would count that time against the server.
        let port = port
        let outcome = await withCheckedContinuation { (done: CheckedContinuation<String?, Never>) in
            Thread.detachNewThread {
                let deadline = ContinuousClock.now + .seconds(45)
                while ContinuousClock.now < deadline {
                    if Self.answersHealth(port: port) { return done.resume(returning: nil) }
                    if let status = process.poll() {
                        return done.resume(
                            returning: "topicgate serve exited with status \(status) before answering HTTP")
                    }
                    usleep(50_000)
                }
                done.resume(returning: "topicgate serve did not answer HTTP on port \(port) within 45 s")
            }
        }
        if let outcome { throw TestFailure(outcome) }
    }

    /// True when `GET /health` on 127.0.0.1:`port` answers 200 within two seconds. Blocking:
    /// for the probe's own thread only.
    private static func answersHealth(port: Int) -> Bool {
        guard let connection = try? RawConnection(port: port) else { return false }
        return connection.blockingStatusLine(
            request: "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", within: 2)?
            .hasPrefix("HTTP/1.1 200") ?? false
    }

    /// Starts the server without waiting for it (an HTTPS server does not answer plain HTTP).
    func startWithoutProbe() async throws {
        // Standard output (the app credentials on first start) and error go to a file beside the
        // data: a server orphaned by a crashed test run must not hold the test runner's pipe open
        // (swift test would wait for it for ever).
        let arguments =
            [
                "serve", "--port", "\(port)", "--data-dir", dataDirectory, "--bcrypt-cost", "4", "--log-level", "error",
                "--mqtt-port", "\(mqttPort)",
            ] + (self.arguments.contains("--mqtt-ws-port") ? [] : ["--mqtt-ws-port", "\(webSocketPort)"])
            + self.arguments
        guard separateErrors else {
            process = try ChildProcess.spawn(executable: executablePath, arguments: arguments, logPath: outputPath)
            return
        }
        let output = open(outputPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        let error = open(errorPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        defer {
            close(output)
            close(error)
        }
        process = try ChildProcess.spawn(
            executable: executablePath, arguments: arguments, output: output, error: error)
    }

    /// Where the server's standard output goes.
    var outputPath: String { dataDirectory + ".stdout" }

    /// Where the server's standard error goes with `separateErrors`.
    var errorPath: String { dataDirectory + ".stderr" }

    /// The default app's client ID and secret, as printed on the first start.
    func adminCredentials() throws -> (clientID: String, clientSecret: String) {
        (try printedValue("clientID"), try printedValue("clientSecret"))
    }

    /// A `key: value` line of what the first start printed (appKey, clientID, clientSecret).
    func printedValue(_ key: String) throws -> String {
        let text = try String(contentsOfFile: credentialsPath, encoding: .utf8)
        guard
            let value = text.split(separator: "\n").first(where: {
                $0.trimmingCharacters(in: .whitespaces).hasPrefix(key + ":")
            })
            .map({ String($0.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces) })
        else { throw TestFailure("no \(key) in \(credentialsPath)") }
        return value
    }

    /// Sends `signal` and waits for the process to end; returns its termination status.
    @discardableResult
    func stop(signal: Int32) async throws -> Int32 {
        guard let process else { return 0 }
        process.send(signal)
        // On a loaded CI machine even a SIGKILLed child can take seconds to be reaped: wait,
        // then insist.
        var status = await process.exit(within: .seconds(30))
        if status == nil {
            process.send(SIGKILL)
            status = await process.exit(within: .seconds(30))
        }
        self.process = nil
        guard let status else { throw TestFailure("topicgate serve (pid \(process.pid)) did not exit") }
        return status
    }

    var isRunning: Bool { process?.isRunning ?? false }

    /// Sends `signal` without waiting for the process to end.
    func send(signal: Int32) { process?.send(signal) }

    /// True when the server ended because one of its ports was taken before it could bind it.
    var lostItsPort: Bool {
        !isRunning
            && ((try? String(contentsOfFile: outputPath, encoding: .utf8))?.contains("Address already in use") ?? false)
    }

    /// One request on a fresh connection.
    func execute(
        _ method: HTTPRequest.Method, _ path: String, token: String?, contentType: String?, body: String?,
        headers extra: HTTPFields
    ) async throws -> APIReply {
        try await Self.execute(
            port: port, method, path, token: token, contentType: contentType, body: body, headers: extra)
    }

    /// One request to 127.0.0.1:`port` on a connection of its own.
    static func execute(
        port: Int, _ method: HTTPRequest.Method, _ path: String, token: String?, contentType: String?, body: String?,
        headers extra: HTTPFields
    ) async throws -> APIReply {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        if let contentType { headers[.contentType] = contentType }
        let request = TestClient.Request(
            path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
        let response = try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
            try await client.execute(request)
        }
        return APIReply(
            status: response.head.status, headers: response.head.headerFields,
            body: response.body.map { Array($0.readableBytesView) } ?? [])
    }

    /// The text of `GET /metrics`.
    func metricsText() async throws -> String {
        let response = try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
            try await client.execute(TestClient.Request("/metrics", method: .get, headers: [:], body: nil))
        }
        return response.body.map { String(buffer: $0) } ?? ""
    }

    /// Runs `topicgate <arguments>` against this server with `credentials` in its environment;
    /// returns its exit status, standard output and standard error.
    func runCLI(_ arguments: [String], credentials: [String: String]) async throws -> (Int32, String, String) {
        var environment = ProcessInfo.processInfo.environment
        environment["TOPICGATE_URL"] = "http://127.0.0.1:\(port)"
        environment.merge(credentials) { $1 }
        let output = Pipe()
        let errors = Pipe()
        let process = try ChildProcess.spawn(
            executable: Self.executable.path, arguments: arguments, environment: environment,
            output: output.fileHandleForWriting.fileDescriptor, error: errors.fileHandleForWriting.fileDescriptor)
        // The child has its own copies: ours closed, the pipes end when it does.
        try output.fileHandleForWriting.close()
        try errors.fileHandleForWriting.close()
        // Both pipes at once: a child that fills one while we wait on the other would block.
        async let out = Self.readToEnd(output.fileHandleForReading)
        async let err = Self.readToEnd(errors.fileHandleForReading)
        let (outText, errText) = await (out, err)
        return (await process.exit(), outText, errText)
    }

    /// Everything `handle` gives until end of file, read off the cooperative pool.
    static func readToEnd(_ handle: FileHandle) async -> String {
        await withCheckedContinuation { (done: CheckedContinuation<String, Never>) in
            DispatchQueue.global().async {
                done.resume(returning: String(decoding: handle.readDataToEndOfFile(), as: UTF8.self))
            }
        }
    }

    deinit {
        // SIGTERM, so that the server stops its embedded broker too; SIGKILL if it lingers.
        guard let process, process.isRunning else { return }
        process.send(SIGTERM)
        for _ in 0..<200 where process.isRunning { usleep(25_000) }
        if process.isRunning { process.killNow() }
    }
}
