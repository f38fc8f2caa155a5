import Foundation
import HTTPTypes
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore
import TopicGateServer

/// The real executable: durability across `kill -9`, and a clean exit on SIGTERM.
@Suite("topicgate serve as a process", .serialized)
struct ServerProcessTests {
    @Test("Everything that returned 2xx is there after kill -9 and a restart")
    func survivesKill() async throws {
        let directory = TestFolder.url.appendingPathComponent("tg-kill-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = ServerProcess(dataDirectory: directory)
        try await server.start()
        let appID = server.appID

        var tokens: [String] = []
        for index in 0..<20 {
            tokens.append(try await server.pseudoUser(["displayName": .string("user \(index)")]).token)
        }
        let groupID = try await server.group(owner: tokens[0], name: "kept")

        try await server.stop(signal: SIGKILL)
        try await server.start()
        for (index, token) in tokens.enumerated() {
            let me = try await server.call(.get, "/api/apps/\(appID)/users/me", token: token)
            #expect(me.status == .ok)
            #expect(me.object["displayName"] == JSONValue.string("user \(index)"))
        }
        #expect(try await server.call(.get, "/api/apps/\(appID)/groups/\(groupID)", token: tokens[0]).status == .ok)
        try await server.stop(signal: SIGTERM)
    }

    @Test("Its log lines go to standard error in swift-log's stream format, a request's carrying its ID")
    func logLines() async throws {
        let directory = TestFolder.url.appendingPathComponent("tg-log-\(UUID().uuidString)")
            .path
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: directory + ".stdout")
            try? FileManager.default.removeItem(atPath: directory + ".stderr")
        }
        // The last --log-level wins over the test servers' own `error`.
        let server = ServerProcess(dataDirectory: directory, arguments: ["--log-level", "debug"], separateErrors: true)
        try await server.start()
        var headers = HTTPFields()
        headers[HTTPField.Name("X-Request-ID")!] = "trace-log-7"
        let reply = try await server.execute(
            .get, "/api/apps/\(server.appID)/users/me", token: "no-such-token", contentType: nil, body: nil,
            headers: headers)
        // Refused (Kii answers an unknown token 403), logged with the request's ID.
        #expect(reply.status == .forbidden)
        try await server.stop(signal: SIGTERM)
        // Standard output holds what serve prints for its operator (the app's credentials), no log line.
        let output = try String(contentsOfFile: server.outputPath, encoding: .utf8)
        #expect(output.contains("appID"))
        #expect(!output.contains("request.id="))
        let errors = try String(contentsOfFile: server.errorPath, encoding: .utf8)
        let answered = errors.split(separator: "\n").filter { $0.contains("request.id=trace-log-7") }
        #expect(!answered.isEmpty)
        for line in answered {
            #expect(
                line.wholeMatch(
                    of:
                        /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} (debug|info) topicgate: .*request\.id=trace-log-7.* \[\w+\] .+/
                )
                    != nil, "\(line)")
        }
        #expect(answered.contains { $0.contains("status=403") && $0.hasSuffix("] Answered") })
    }

    @Test("SIGTERM and SIGINT stop the server cleanly with exit status 0")
    func gracefulShutdown() async throws {
        let directory = TestFolder.url.appendingPathComponent("tg-term-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for signal in [SIGTERM, SIGINT] {
            let server = ServerProcess(dataDirectory: directory)
            try await server.start()
            #expect(try await server.stop(signal: signal) == 0)
            #expect(!server.isRunning)
        }
    }

    @Test("serve starts its own Mosquitto, restarts it when it dies, and stops it on shutdown")
    func embeddedBroker() async throws {
        let directory = TestFolder.url.appendingPathComponent(
            "tg-embedded-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = ServerProcess(dataDirectory: directory)
        try await server.start()
        let secret = try String(contentsOfFile: directory + "/mqtt-secret", encoding: .utf8)
        #expect(secret.trimmingCharacters(in: .whitespacesAndNewlines).count == 64)
        let permissions =
            try FileManager.default.attributesOfItem(atPath: directory + "/mqtt-secret")[.posixPermissions] as? Int
        #expect(permissions == 0o600)

        // The data folder and the database are the gateway's alone; a root gateway's broker
        // runs as the unprivileged mosquitto user.
        let asRoot = geteuid() == 0 && getpwnam("mosquitto") != nil
        #expect(try Self.mode(directory) == (asRoot ? 0o711 : 0o700))
        #expect(try Self.mode(directory + "/topicgate.sqlite") == 0o600)
        let first = try await brokerPID(directory)
        #expect(kill(first, 0) == 0)
        if asRoot {
            let status = try String(contentsOfFile: "/proc/\(first)/status", encoding: .utf8)
            let uid = status.split(separator: "\n").first { $0.hasPrefix("Uid:") }?.split(
                whereSeparator: \.isWhitespace)
            #expect(
                uid?.count ?? 0 > 2 && uid?[2] == Substring(String(getpwnam("mosquitto")!.pointee.pw_uid)),
                "effective uid")
            #expect(try Self.mode(directory + "/broker/mqtt-secret") == 0o640)
        }
        let appID = server.appID
        let token = try await server.pseudoUser().token
        let installed = try await server.call(
            .post, "/api/apps/\(appID)/installations", token: token, json: ["deviceType": "MQTT"])
        let installation = try #require(installed.object["installationID"]?.stringValue)
        let endpoint = try await server.call(
            .get, "/api/apps/\(appID)/installations/\(installation)/mqtt-endpoint", token: token)
        #expect(endpoint.object["portTCP"]?.intValue == Int64(server.mqttPort))
        #expect(endpoint.object["host"]?.stringValue == "127.0.0.1")

        // The broker dies: serve starts a new one, and devices connect again.
        kill(first, SIGKILL)
        var second = first
        for _ in 0..<100 where second == first || kill(second, 0) != 0 {
            try await Task.sleep(for: .milliseconds(100))
            second = (try? await brokerPID(directory)) ?? first
        }
        #expect(second != first)
        let topic = try #require(endpoint.object["mqttTopic"]?.stringValue)
        let device = try MQTTClient(
            configuration: MQTTClientConfiguration(
                host: "127.0.0.1", port: server.mqttPort, clientID: topic, username: topic,
                password: endpoint.object["password"]?.stringValue))
        defer { device.shutdown() }
        try await device.connect(timeout: .seconds(10))
        try await device.subscribe(topic)

        // Shutdown stops the broker too.
        #expect(try await server.stop(signal: SIGTERM) == 0)
        for _ in 0..<100 where kill(second, 0) == 0 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(kill(second, 0) != 0)
    }

    @Test("SIGTERM with --drain-time: /ready answers 503 draining while requests are still served, then it stops")
    func drainsOnSigterm() async throws {
        let directory = TestFolder.url.appendingPathComponent("tg-drain-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = ServerProcess(dataDirectory: directory, arguments: ["--drain-time", "3", "--broker", "none"])
        try await server.start()
        #expect(try await server.call(.get, "/ready").status == .ok)
        let sent = ContinuousClock.now
        server.send(signal: SIGTERM)
        #expect(try await eventually { try await server.call(.get, "/ready").status == .serviceUnavailable })
        let ready = try await server.call(.get, "/ready")
        #expect(
            ready.object["status"]?.stringValue == "draining" && ready.object["errorCode"]?.stringValue == "NOT_READY")
        // Still serving: a sign-up works during the drain.
        #expect(
            try await server.call(.post, "\(server.app)/users", contentType: "application/json", body: "{}").status
                == .created)
        #expect(server.isRunning)
        #expect(try await server.stop(signal: SIGTERM) == 0, "a second SIGTERM stops it at once")
        #expect(ContinuousClock.now - sent < .seconds(3))

        // Without a second signal it stops by itself once the drain is over.
        try await server.start()
        let again = ContinuousClock.now
        server.send(signal: SIGTERM)
        #expect(try await eventually(timeout: .seconds(15)) { !server.isRunning })
        #expect(ContinuousClock.now - again >= .seconds(3))
    }

    @Test("serve refuses an MQTT secret file that group or others can read, and says how to fix it")
    func looseSecretRefused() async throws {
        let directory = TestFolder.url.appendingPathComponent("tg-loose-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(
            atPath: directory + "/mqtt-secret", contents: Data(String(repeating: "ab", count: 32).utf8),
            attributes: [.posixPermissions: 0o644])
        let server = ServerProcess(dataDirectory: directory)
        await #expect(throws: TestFailure.self) { try await server.start() }
        let output = try String(contentsOfFile: server.outputPath, encoding: .utf8)
        #expect(output.contains("readable or writable by group or others"))
        #expect(output.contains("chmod 600"))
        try? FileManager.default.removeItem(atPath: server.outputPath)
    }

    static func mode(_ path: String) throws -> Int {
        ((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? 0)
            & 0o777
    }

    /// The embedded broker's pid, from the pid file it writes.
    func brokerPID(_ directory: String) async throws -> pid_t {
        for _ in 0..<100 {
            if let text = try? String(contentsOfFile: directory + "/broker/state/mosquitto.pid", encoding: .utf8),
                let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return pid
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("no broker pid file in \(directory)/broker")
    }
}
