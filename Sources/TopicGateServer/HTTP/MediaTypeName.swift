import HTTPTypes
import Hummingbird

/// The lower-cased media type of a request without parameters (`application/vnd.kii.x+json`).
/// Read byte by byte: Foundation's trimming and searching cost more than the rest of a
/// sign-up's request handling.
struct MediaTypeName {
    /// Lower-case ASCII bytes of the type, without surrounding spaces.
    let bytes: [UInt8]

    init(_ request: Request) {
        let header = request.headers[.contentType] ?? ""
        var bytes = Array(header.utf8.prefix { $0 != UInt8(ascii: ";") })
        while bytes.last == UInt8(ascii: " ") || bytes.last == UInt8(ascii: "\t") { bytes.removeLast() }
        let leading = bytes.prefix { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }.count
        self.bytes = bytes.dropFirst(leading).map(Self.lowercased)
    }

    /// Whether the type contains `fragment` (compared without case).
    func contains(_ fragment: String) -> Bool {
        let needle = fragment.utf8.map(Self.lowercased)
        guard !needle.isEmpty else { return true }
        guard bytes.count >= needle.count else { return false }
        for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
            if bytes[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
