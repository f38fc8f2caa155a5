import Synchronization

/// The topic notices of this gateway's own ACL changes, each marked with an origin of its own
/// (`topic <app> <address> <origin>`), so that their echo on the change feed is not applied:
/// the change tells this gateway's topic cache itself before it returns, and the gateway then
/// keeps the topic as the change left it. Applying the echo would drop it again, and the next
/// request would read it back from the database.
///
/// A change is expected from before it is sent, since its echo may arrive before its answer
/// (the feed's connection and the change's race); an echo proves that the change committed. A
/// change whose outcome is unknown (the connection failed) is forgotten before it tells the
/// cache: it may commit after a request read the topic again, and its echo then drops what was
/// read. Every other gateway applies the notice as usual; one that does not know the mark drops
/// everything (`StoreChange.unknown`).
final class OwnNotices: Sendable {
    /// Origins expected at most; past it the expectation starts over (those echoes then drop the
    /// topic, as without it).
    static let kept = 4_096

    private let prefix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    private let counter = Atomic<UInt64>(0)
    private let expected = Mutex<Set<String>>([])

    /// A new origin, unique among every gateway's, whose echo is expected from now on.
    func expect() -> String {
        let origin = "\(prefix).\(counter.add(1, ordering: .relaxed).newValue)"
        expected.withLock { expected in
            if expected.count >= Self.kept { expected.removeAll(keepingCapacity: true) }
            expected.insert(origin)
        }
        return origin
    }

    /// The change marked `origin` sent no notice, or its outcome is unknown: an echo of it, if
    /// any comes, is applied.
    func forget(_ origin: String) {
        _ = expected.withLock { $0.remove(origin) }
    }

    /// Whether `payload` is the echo of an expected change of this gateway's (each is recognized
    /// once).
    func isEcho(_ payload: String) -> Bool {
        guard payload.utf8.starts(with: "topic ".utf8) else { return false }
        let parts = payload.split(separator: " ")
        guard parts.count == 4 else { return false }
        let origin = String(parts[3])
        return expected.withLock { $0.remove(origin) != nil }
    }
}
