import Foundation
import Synchronization
import TopicGateServer

/// A clock a test moves by hand (starting at the real time), for lockouts, rate limits and
/// idle users without waiting.
final class ManualClock: Sendable {
    private let millis: Mutex<Int64>

    init() {
        millis = Mutex(Int64(Date().timeIntervalSince1970 * 1000))
    }

    var now: Int64 { millis.withLock { $0 } }

    func advance(seconds: Int64) {
        millis.withLock { $0 += seconds * 1000 }
    }

    var timeSource: TimeSource {
        TimeSource { [self] in now }
    }
}
