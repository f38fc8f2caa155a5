import Foundation

/// What names a gateway process among the gateways of one database.
public enum GatewayIdentity {
    /// `host-pid-random`: names a gateway process in the logs and the outbox's claims.
    public static func generated() -> String {
        // gethostname: the machine's name as set, without a DNS lookup.
        var name = [CChar](repeating: 0, count: 256)
        let host =
            gethostname(&name, name.count - 1) == 0
            ? String(cString: name).split(separator: ".").first.map(String.init) ?? "gateway" : "gateway"
        return "\(host)-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
    }
}
