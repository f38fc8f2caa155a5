/// Whose `X-Forwarded-For` header names the client: nobody's (the connection's peer is the
/// client), any peer's (the gateway is reachable only through a proxy), or only the listed
/// proxies' (addresses, or IPv4 ranges such as `172.28.0.0/24`); a client that reaches the
/// gateway directly cannot then pick its own address for the per-address limits.
public enum ProxyTrust: Sendable, Hashable {
    case nobody
    case anyPeer
    case proxies([String])

    /// A comma-separated list of addresses and IPv4 CIDR ranges; nil when an entry is neither.
    public init?(parsing text: String) {
        let entries = text.split(separator: ",").map { String($0.filter { !$0.isWhitespace }) }
        guard !entries.isEmpty, entries.allSatisfy(Self.isEntry) else { return nil }
        self = .proxies(entries)
    }

    /// True when a request from `peer` may name its client in `X-Forwarded-For`.
    public func trusts(peer: String?) -> Bool {
        switch self {
        case .nobody: return false
        case .anyPeer: return true
        case .proxies(let entries):
            guard let peer else { return false }
            return entries.contains { Self.matches(peer, $0) }
        }
    }

    static func isEntry(_ entry: String) -> Bool {
        if let slash = entry.firstIndex(of: "/") {
            guard Self.ipv4(entry[..<slash]) != nil, let bits = Int(entry[entry.index(after: slash)...]) else {
                return false
            }
            return (0...32).contains(bits)
        }
        return Self.ipv4(entry) != nil || (entry.contains(":") && entry.allSatisfy { $0.isHexDigit || $0 == ":" })
    }

    static func matches(_ peer: String, _ entry: String) -> Bool {
        guard let slash = entry.firstIndex(of: "/") else { return peer == entry }
        guard let address = ipv4(peer), let base = ipv4(entry[..<slash]),
            let bits = Int(entry[entry.index(after: slash)...])
        else { return false }
        let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << (32 - bits)
        return address & mask == base & mask
    }

    static func ipv4(_ text: some StringProtocol) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard part.count <= 3, let byte = UInt8(part) else { return nil }
            value = value << 8 | UInt32(byte)
        }
        return value
    }
}
