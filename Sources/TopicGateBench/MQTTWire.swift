import NIOCore

/// The few MQTT 3.1.1 packets a benchmark device needs, written and read by hand: CONNECT,
/// SUBSCRIBE (QoS 0), PUBACK and DISCONNECT out; CONNACK, SUBACK and PUBLISH in. Small enough
/// that ten thousand devices fit on two event loop threads, which one libmosquitto thread per
/// client would not.
enum MQTTWire {
    /// An incoming packet.
    enum Packet {
        case connectAcknowledged(returnCode: UInt8)
        case subscribeAcknowledged
        case publish(topic: String, payload: ByteBuffer, packetID: UInt16?)
        case other
    }

    static func connect(clientID: String, username: String?, password: String?, keepAlive: UInt16 = 600) -> ByteBuffer {
        var body = ByteBuffer()
        writeString("MQTT", into: &body)
        body.writeInteger(UInt8(4))
        var flags: UInt8 = 0x02  // clean session
        if username != nil { flags |= 0x80 }
        if password != nil { flags |= 0x40 }
        body.writeInteger(flags)
        body.writeInteger(keepAlive)
        writeString(clientID, into: &body)
        if let username { writeString(username, into: &body) }
        if let password { writeString(password, into: &body) }
        return frame(0x10, body)
    }

    static func subscribe(_ filter: String, packetID: UInt16) -> ByteBuffer {
        var body = ByteBuffer()
        body.writeInteger(packetID)
        writeString(filter, into: &body)
        body.writeInteger(UInt8(0))
        return frame(0x82, body)
    }

    static func publishAcknowledgement(_ packetID: UInt16) -> ByteBuffer {
        var body = ByteBuffer()
        body.writeInteger(packetID)
        return frame(0x40, body)
    }

    static let disconnect: ByteBuffer = ByteBuffer(bytes: [0xE0, 0x00])

    static func frame(_ type: UInt8, _ body: ByteBuffer) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(type)
        var length = body.readableBytes
        repeat {
            var byte = UInt8(length % 128)
            length /= 128
            if length > 0 { byte |= 0x80 }
            buffer.writeInteger(byte)
        } while length > 0
        var body = body
        buffer.writeBuffer(&body)
        return buffer
    }

    static func writeString(_ text: String, into buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt16(text.utf8.count))
        buffer.writeString(text)
    }

    /// Reads one whole packet from `buffer`, or nothing (and leaves it) when it is not all there.
    static func read(_ buffer: inout ByteBuffer) -> Packet? {
        let start = buffer.readerIndex
        guard let type: UInt8 = buffer.readInteger() else { return nil }
        var length = 0
        var multiplier = 1
        while true {
            guard let byte: UInt8 = buffer.readInteger() else {
                buffer.moveReaderIndex(to: start)
                return nil
            }
            length += Int(byte & 0x7F) * multiplier
            multiplier *= 128
            if byte & 0x80 == 0 { break }
        }
        guard var body = buffer.readSlice(length: length) else {
            buffer.moveReaderIndex(to: start)
            return nil
        }
        switch type >> 4 {
        case 2:
            _ = body.readInteger(as: UInt8.self)
            return .connectAcknowledged(returnCode: body.readInteger() ?? 0xFF)
        case 9: return .subscribeAcknowledged
        case 3:
            guard let topicLength: UInt16 = body.readInteger(), let topic = body.readString(length: Int(topicLength))
            else {
                return .other
            }
            let qos = (type >> 1) & 0x03
            let packetID: UInt16? = qos > 0 ? body.readInteger() : nil
            return .publish(topic: topic, payload: body, packetID: packetID)
        default: return .other
        }
    }
}
