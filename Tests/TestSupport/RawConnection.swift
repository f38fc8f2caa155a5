import Foundation

/// A plain TCP connection to a loopback port that sends exactly the bytes it is given and
/// reads exactly what comes back: for tests that speak as a particular client does (request
/// lines, header case, chunked bodies, MQTT packets), with no client library in between.
public final class RawConnection {
    private let descriptor: Int32
    private let timeout: Duration

    /// Connects to 127.0.0.1:`port` (from the loopback address `source`, when given: another
    /// client as far as the server can tell); every read gives up after `timeout`.
    public init(port: Int, timeout: Duration = .seconds(10), from source: String? = nil) throws {
        self.timeout = timeout
        // The descriptor is stored only once connected: a class whose initializer throws after
        // every property is set is deinitialized, and a second close() of a number the system
        // may already have handed to another thread's file would close that file instead.
        descriptor = try Self.connected(port: port, from: source)
    }

    /// A new socket connected to 127.0.0.1:`port`; closed again when anything fails.
    private static func connected(port: Int, from source: String?) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket() failed: errno \(errno)") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                close(descriptor)
                throw TestFailure("bind to \(source) failed: errno \(errno)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw TestFailure("connect to port \(port) failed: errno \(errno)")
        }
        return descriptor
    }

    deinit { close(descriptor) }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Foundation.send(descriptor, $0.baseAddress, $0.count, 0) }
            guard written > 0 else { throw TestFailure("send failed: errno \(errno)") }
            offset += written
        }
    }

    /// Up to `count` bytes as they arrive; empty when the peer closed. Throws on the timeout.
    /// Waits by polling with short sleeps, never blocking a task thread (a blocked thread
    /// would starve every other suite on a 2-core machine).
    public func receive(upTo count: Int = 65536) async throws -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while poll(&ready, 1, 0) == 0 {
            guard ContinuousClock.now < deadline else { throw TestFailure("no bytes within \(timeout)") }
            try await Task.sleep(for: .milliseconds(5))
        }
        var buffer = [UInt8](repeating: 0, count: count)
        let read = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, count, 0) }
        guard read >= 0 else { throw TestFailure("recv failed (errno \(errno))") }
        return Array(buffer[0..<read])
    }

    /// Sends `request` and waits, blocking this thread, for the first line of the answer (nil when
    /// none came within `seconds`). For probes on a thread of their own, never a task's.
    public func blockingStatusLine(request: String, within seconds: Int) -> String? {
        guard (try? send(request)) != nil else { return nil }
        var limit = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while !bytes.contains(UInt8(ascii: "\n")) {
            let read = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard read > 0 else { return nil }
            bytes += buffer[0..<read]
        }
        return String(decoding: bytes.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }

    /// Exactly `count` bytes. Throws when the peer closes first or the timeout passes.
    public func receive(exactly count: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < count {
            let chunk = try await receive(upTo: count - bytes.count)
            guard !chunk.isEmpty else { throw TestFailure("connection closed after \(bytes.count) of \(count) bytes") }
            bytes += chunk
        }
        return bytes
    }

    /// Everything until the peer closes the connection, as a client that reads a response
    /// "until the server closes" does. Throws when the server keeps the connection open.
    public func receiveUntilClosed() async throws -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            let chunk = try await receive()
            if chunk.isEmpty { return bytes }
            bytes += chunk
        }
    }
}
