import Glibc

/// A non-blocking pipe that wakes the network loop's poll(): signalled after a call queued
/// something to send, or when the client wants the loop to look at its state (connect,
/// disconnect, stop).
final class WakeSignal: Sendable {
    /// The end to poll for reading.
    let descriptor: Int32
    private let writer: Int32

    init() throws(MQTTError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw MQTTError(code: .library, detail: "pipe failed (errno \(errno))") }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        descriptor = ends[0]
        writer = ends[1]
    }

    deinit {
        close(descriptor)
        close(writer)
    }

    /// Wakes the loop (a full pipe already will: the byte is dropped).
    func signal() {
        var byte: UInt8 = 1
        _ = write(writer, &byte, 1)
    }

    /// Clears the signals received so far.
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 256)
        while read(descriptor, &bytes, bytes.count) > 0 {}
    }
}
