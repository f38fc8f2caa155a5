import ProcessSupport

/// A loopback TCP port that was free a moment ago.
public enum FreePort {
    public static func next() -> Int {
        TCPProbe.freePort()
    }
}
