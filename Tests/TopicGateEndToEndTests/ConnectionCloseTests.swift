import Foundation
import TestSupport
import Testing
import TopicGateServer

/// Clients that read a response until the server closes (Kii's C thing SDK): `Connection:
/// Close` in any case, and HTTP/1.0 without keep-alive, end the connection after the response.
@Suite("HTTP: connections that ask to close")
struct ConnectionCloseTests {
    func server() async throws -> ServerProcess {
        let directory = TestFolder.url.appendingPathComponent("tg-close-\(UUID().uuidString)")
            .path
        let server = ServerProcess(dataDirectory: directory, arguments: ["--broker", "none"])
        try await server.start()
        return server
    }

    @Test("Connection: Close, CLOSE, close and HTTP/1.0 each get a response, then the server closes")
    func closes() async throws {
        let server = try await server()
        let requests = [
            "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Close\r\n\r\n",
            "GET /health HTTP/1.1\r\nHOST: 127.0.0.1\r\nconnection: CLOSE\r\n\r\n",
            "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
            "GET /health HTTP/1.0\r\n\r\n",
            "GET http://127.0.0.1:\(server.port)/health HTTP/1.1\r\nHOST: 127.0.0.1:\(server.port)\r\nConnection: "
                + "Close\r\n\r\n",
        ]
        for request in requests {
            let connection = try RawConnection(port: server.port, timeout: .seconds(10))
            try connection.send(request)
            let response = String(decoding: try await connection.receiveUntilClosed(), as: UTF8.self)
            #expect(response.hasPrefix("HTTP/1.1 200"), "\(request)")
            #expect(response.lowercased().contains("connection: close"), "\(request)")
        }
    }

    @Test("HTTP/1.1 without Connection, and HTTP/1.0 with keep-alive, keep the connection for a second request")
    func keepsAlive() async throws {
        let server = try await server()
        for request in [
            "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "GET /health HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
        ] {
            let connection = try RawConnection(port: server.port, timeout: .seconds(10))
            for _ in 0..<2 {
                try connection.send(request)
                let response = String(decoding: try await connection.receive(), as: UTF8.self)
                #expect(response.hasPrefix("HTTP/1.1 200"), "\(request)")
                #expect(!response.lowercased().contains("connection: close"), "\(request)")
            }
        }
    }
}
