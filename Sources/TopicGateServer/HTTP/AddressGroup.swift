import Foundation

/// The key a client address is budgeted and locked under: an IPv4 address as it is, an IPv6
/// address by its /64 network (one subscriber's line or one host's whole block, which the
/// holder can fill with addresses at will), an IPv4-mapped IPv6 address as its IPv4.
enum AddressGroup {
    static func key(_ address: String) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        let parsed = address.withCString { inet_pton(AF_INET6, $0, &bytes) }
        guard parsed == 1 else { return address }
        // ::ffff:a.b.c.d is an IPv4 client seen through a dual-stack socket.
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return bytes[12..<16].map(String.init).joined(separator: ".")
        }
        let network = stride(from: 0, to: 8, by: 2).map {
            String(format: "%x", Int(bytes[$0]) << 8 | Int(bytes[$0 + 1]))
        }
        return network.joined(separator: ":") + "::/64"
    }
}
