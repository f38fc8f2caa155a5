/// MQTT control packets as bytes, for tests that speak MQTT exactly as a given client does
/// (Kii's C thing SDK's MQTT 3.1 `MQIsdp` CONNECT, a browser's MQTT over WebSockets).
public enum MQTTPackets {
    /// MQTT 3.1 (`MQIsdp`, level 3), as Kii's C thing SDK sends it.
    public static let mqtt31: (name: String, level: UInt8) = ("MQIsdp", 3)
    /// MQTT 3.1.1 (`MQTT`, level 4).
    public static let mqtt311: (name: String, level: UInt8) = ("MQTT", 4)

    /// CONNECT with user name and password and a clean session (flags 0xC2).
    public static func connect(
        protocol version: (name: String, level: UInt8) = mqtt311, clientID: String, username: String, password: String,
        keepAlive: UInt16 = 300
    ) -> [UInt8] {
        var body = string(version.name) + [version.level, 0xC2, UInt8(keepAlive >> 8), UInt8(keepAlive & 0xFF)]
        body += string(clientID) + string(username) + string(password)
        return packet(0x10, body)
    }

    /// SUBSCRIBE to one filter.
    public static func subscribe(_ filter: String, qos: UInt8 = 0, packetID: UInt16 = 1) -> [UInt8] {
        packet(0x82, [UInt8(packetID >> 8), UInt8(packetID & 0xFF)] + string(filter) + [qos])
    }

    /// PUBLISH at QoS 0.
    public static func publish(_ topic: String, _ payload: [UInt8]) -> [UInt8] {
        packet(0x30, string(topic) + payload)
    }

    public static let disconnect: [UInt8] = [0xE0, 0x00]

    /// A length-prefixed UTF-8 string.
    public static func string(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        return [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
    }

    public static func packet(_ header: UInt8, _ body: [UInt8]) -> [UInt8] {
        var length = body.count
        var encoded: [UInt8] = []
        repeat {
            var byte = UInt8(length % 128)
            length /= 128
            if length > 0 { byte |= 0x80 }
            encoded.append(byte)
        } while length > 0
        return [header] + encoded + body
    }

    /// One packet read from the front of `bytes`: its first byte and body; nil while incomplete.
    public static func next(from bytes: inout [UInt8]) -> (header: UInt8, body: [UInt8])? {
        guard bytes.count >= 2 else { return nil }
        var length = 0
        var multiplier = 1
        var index = 1
        while true {
            guard index < bytes.count, index <= 4 else { return nil }
            let byte = bytes[index]
            length += Int(byte & 0x7F) * multiplier
            multiplier *= 128
            index += 1
            if byte & 0x80 == 0 { break }
        }
        guard bytes.count >= index + length else { return nil }
        let packet = (bytes[0], Array(bytes[index..<(index + length)]))
        bytes.removeFirst(index + length)
        return packet
    }

    /// The topic and payload of a PUBLISH body (QoS 0: no packet ID).
    public static func publication(_ header: UInt8, _ body: [UInt8]) -> (topic: String, payload: [UInt8])? {
        guard header & 0xF0 == 0x30, body.count >= 2 else { return nil }
        let length = Int(body[0]) << 8 | Int(body[1])
        guard body.count >= 2 + length else { return nil }
        let skip = 2 + length + (header & 0x06 != 0 ? 2 : 0)
        return (String(decoding: body[2..<(2 + length)], as: UTF8.self), Array(body[min(skip, body.count)...]))
    }
}
