import Foundation

/// A WebSocket client over a `RawConnection`, as a browser opens one for MQTT: the upgrade
/// with `Sec-WebSocket-Protocol: mqtt`, masked binary frames out, binary frames in.
public final class WebSocketConnection {
    public let connection: RawConnection
    /// The subprotocol the server chose.
    public private(set) var subprotocol: String?
    private var pending: [UInt8] = []

    public init(port: Int, path: String = "/mqtt", offering offered: String = "mqtt") async throws {
        connection = try RawConnection(port: port)
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        try connection.send(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: \(offered)\r\n"
                + "Origin: http://127.0.0.1\r\n\r\n")
        var head: [UInt8] = []
        while !(head.count >= 4 && Array(head.suffix(4)) == [13, 10, 13, 10]) {
            let byte = try await connection.receive(upTo: 1)
            guard !byte.isEmpty else { throw TestFailure("closed during the WebSocket upgrade") }
            head += byte
        }
        let text = String(decoding: head, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 101") else { throw TestFailure("no WebSocket upgrade: \(text)") }
        self.subprotocol = text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-protocol:") }
            .map { $0.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces) }
    }

    /// One binary frame, masked as a client must.
    public func send(_ payload: [UInt8]) throws {
        var frame: [UInt8] = [0x82]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try connection.send(frame)
    }

    /// The next MQTT packet from the binary frames received (which may split or join packets).
    public func nextPacket() async throws -> (header: UInt8, body: [UInt8]) {
        while true {
            if let packet = MQTTPackets.next(from: &pending) { return packet }
            pending += try await nextFramePayload()
        }
    }

    private func nextFramePayload() async throws -> [UInt8] {
        let head = try await connection.receive(exactly: 2)
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            let extended = try await connection.receive(exactly: 2)
            length = Int(extended[0]) << 8 | Int(extended[1])
        } else if length == 127 {
            length = try await connection.receive(exactly: 8).reduce(0) { $0 << 8 | Int($1) }
        }
        let payload = length > 0 ? try await connection.receive(exactly: length) : []
        switch head[0] & 0x0F {
        case 0x8: throw TestFailure("the server closed the WebSocket")
        case 0x9, 0xA: return []  // ping, pong
        default: return payload
        }
    }
}
