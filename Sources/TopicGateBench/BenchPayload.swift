/// The payloads the bench publishes and the fields it reads from what devices receive: read
/// by searching the bytes, without a JSON parser or Foundation, so that the measuring costs
/// the same few nanoseconds per byte for TopicGate's payloads and for the baselines'.
enum BenchPayload {
    /// `head` (a JSON object without its closing brace) with a filler member, `size` bytes in
    /// all when that is longer: a baseline's payload as large as TopicGate's.
    static func padded(_ head: String, to size: Int) -> [UInt8] {
        let filler = max(0, size - head.utf8.count - #","pad":""}"#.utf8.count)
        return Array((head + #","pad":""# + String(repeating: "x", count: filler) + #""}"#).utf8)
    }

    /// Where the value after the first `key` (e.g. `"seq":`) begins.
    static func valueStart(after key: StaticString, in bytes: [UInt8]) -> Int? {
        key.withUTF8Buffer { key -> Int? in
            guard let first = key.first, bytes.count >= key.count else { return nil }
            var index = 0
            search: while index + key.count <= bytes.count {
                defer { index += 1 }
                guard bytes[index] == first else { continue }
                for offset in 1..<key.count where bytes[index + offset] != key[offset] { continue search }
                return index + key.count
            }
            return nil
        }
    }

    /// The value of `"commandID":"…"`.
    static func commandID(in payload: some Collection<UInt8>) -> String? {
        let bytes = Array(payload)
        guard let start = valueStart(after: #""commandID":""#, in: bytes),
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\""))
        else { return nil }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// The number after `"seq":`.
    static func sequence(in payload: some Collection<UInt8>) -> Int? {
        let bytes = Array(payload)
        guard var position = valueStart(after: #""seq":"#, in: bytes) else { return nil }
        while position < bytes.count && bytes[position] == 0x20 { position += 1 }
        var value = 0
        var digits = 0
        while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39 {
            value = value * 10 + Int(bytes[position] - 0x30)
            position += 1
            digits += 1
        }
        return digits > 0 ? value : nil
    }
}
