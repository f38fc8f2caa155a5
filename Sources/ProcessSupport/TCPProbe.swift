import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Loopback TCP ports: whether something accepts connections on one (the embedded broker's
/// listener is up), and one that is free.
public enum TCPProbe {
    /// Waits until something accepts TCP connections on `port` (true), or `timeout` passed or
    /// `alive` (the process that should listen) turned false.
    public static func waitUntilAccepts(
        host: String = "127.0.0.1", port: Int, timeout: Duration, alive: () -> Bool = { true }
    ) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !accepts(host: host, port: port) {
            guard ContinuousClock.now < deadline, alive() else { return false }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return true
    }

    /// True when something accepts TCP connections on `host` (an IPv4 address; loopback
    /// otherwise) at `port`.
    public static func accepts(host: String = "127.0.0.1", port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        var parsed = in_addr()
        if inet_pton(AF_INET, host, &parsed) == 1 { address.sin_addr = parsed }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A loopback port that was free a moment ago: bind port 0, read what the kernel chose,
    /// close.
    public static func freePort() -> Int {
        // Below Linux's ephemeral range (32768 and up): a port the kernel hands out for bind(0)
        // is also what it hands out for outgoing connections, so between this check and the
        // caller's bind, another process's connect could take it. Never the same port twice in
        // one process: two servers starting side by side must not both get one that is free
        // only because neither has bound it yet.
        for _ in 0..<256 {
            let port = Int.random(in: 10_000..<32_000)
            if canBind(port), handedOut.withLock({ $0.insert(port).inserted }) { return port }
        }
        return boundPort(0)
    }

    /// The ports `freePort` returned so far.
    private static let handedOut = Mutex<Set<Int>>([])

    /// True when a listener could bind `port` on loopback now.
    static func canBind(_ port: Int) -> Bool {
        boundPort(port) == port
    }

    /// Binds a socket to `port` on loopback (0: any), closes it, and returns the port it got
    /// (0 when the bind failed).
    static func boundPort(_ port: Int) -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = loopback(port: port)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : 0
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
