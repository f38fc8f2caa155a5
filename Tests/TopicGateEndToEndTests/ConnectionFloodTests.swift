import Foundation
import TestSupport
import Testing

/// No client can take the connections that belong to all: idle connections and half-sent
/// requests are closed after their deadlines, one address holds at most so many connections
/// (the next is answered 503 and closed), and meanwhile `/health` answers another client in
/// under a second. Through the real executable, with raw sockets.
@Suite("Connection deadlines and caps")
struct ConnectionFloodTests {
    /// `GET /health` from `source`: the status line and how long the answer took.
    static func health(port: Int, from source: String) async throws -> (String, Duration) {
        let started = ContinuousClock.now
        let connection = try RawConnection(port: port, timeout: .seconds(5), from: source)
        try connection.send("GET /health HTTP/1.1\r\nHost: topicgate\r\nConnection: close\r\n\r\n")
        let answer = String(decoding: try await connection.receiveUntilClosed(), as: UTF8.self)
        return (answer.components(separatedBy: "\r\n").first ?? "", ContinuousClock.now - started)
    }

    /// How many of `held` were refused with 503 `TOO_MANY_CONNECTIONS`; every other one must
    /// have been closed unanswered.
    static func refusals(_ held: [RawConnection]) async throws -> Int {
        var refusals = 0
        for (index, connection) in held.enumerated() {
            let answer = String(decoding: try await connection.receiveUntilClosed(), as: UTF8.self)
            if answer.hasPrefix("HTTP/1.1 503") {
                #expect(answer.contains("TOO_MANY_CONNECTIONS"))
                refusals += 1
            } else {
                #expect(answer.isEmpty, "connection \(index) was answered: \(answer)")
            }
        }
        return refusals
    }

    @Test("Slow and idle connections past the caps and deadlines: refused or closed, /health still answers at once")
    func flood() async throws {
        let directory = TestFolder.url.appendingPathComponent("tg-flood-\(UUID().uuidString)")
            .path
        let server = ServerProcess(
            dataDirectory: directory,
            arguments: [
                "--broker", "none", "--max-connections-per-address", "20", "--idle-timeout", "3", "--read-timeout",
                "3",
            ])
        // Started and probed with raw requests of its own (each sent at once, whole).
        try await server.startWithoutProbe()
        #expect(
            try await eventually(timeout: .seconds(45)) {
                (try? await Self.health(port: server.port, from: "127.0.0.1"))?.0 == "HTTP/1.1 200 OK"
            })
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Thirty connections from one address: ten send half a request, the others nothing.
        var held: [RawConnection] = []
        for index in 0..<30 {
            let connection = try RawConnection(port: server.port, timeout: .seconds(10))
            if index < 10 { try connection.send("GET /health HTTP/1.1\r\nHost: topicgate\r\nX-Slow: ") }
            held.append(connection)
        }
        // Another client is served meanwhile, in well under a second.
        try await Task.sleep(for: .milliseconds(300))
        let (status, took) = try await Self.health(port: server.port, from: "127.0.0.2")
        #expect(status == "HTTP/1.1 200 OK")
        #expect(took < .seconds(1), "/health took \(took)")
        // Ten of the thirty were refused at once, with a reason; the twenty others are closed by
        // the gateway past their deadlines, unanswered.
        #expect(try await Self.refusals(held) == 10)
        // And the address may connect again.
        let (again, _) = try await Self.health(port: server.port, from: "127.0.0.1")
        #expect(again == "HTTP/1.1 200 OK")
        _ = try await server.stop(signal: SIGTERM)
    }

    @Test(
        "The MQTT-over-WebSockets port: past its cap an upgrade is refused, silent and half-sent upgrades are closed, an upgraded session outlives the deadlines"
    )
    func webSocketFlood() async throws {
        let directory = TestFolder.url.appendingPathComponent("tg-wsflood-\(UUID().uuidString)")
            .path
        let server = ServerProcess(
            dataDirectory: directory,
            arguments: ["--max-websocket-connections-per-address", "20", "--idle-timeout", "3", "--read-timeout", "3"])
        try await server.start()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var held: [RawConnection] = []
        for index in 0..<30 {
            let connection = try RawConnection(port: server.webSocketPort, timeout: .seconds(10))
            if index < 10 { try connection.send("GET /mqtt HTTP/1.1\r\nHost: topicgate\r\nUpgrade: websocket\r\n") }
            held.append(connection)
        }
        #expect(try await Self.refusals(held) == 10)
        // A device's session is not held to the upgrade's deadlines: quiet past both, it is
        // still the broker's to answer.
        let socket = try await WebSocketConnection(port: server.webSocketPort)
        try await Task.sleep(for: .seconds(4))
        try socket.send(MQTTPackets.connect(clientID: "quiet", username: "nobody", password: "wrong"))
        let connack = try await socket.nextPacket()
        #expect(connack.header == 0x20)
        #expect(connack.body.last != 0)
        _ = try await server.stop(signal: SIGTERM)
    }
}
