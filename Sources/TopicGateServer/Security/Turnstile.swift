import Synchronization

/// One caller at a time per key, the others waiting in memory in arrival order. `AbuseGuard`
/// lets only one waiting check of an account try the ledger at a time: forty devices of one
/// user logging in at once then cost one ledger transaction per try, not forty (on a shared
/// ledger each try takes a database connection, and forty of them crowded out the checks they
/// were waiting for).
final class Turnstile: Sendable {
    /// The keys in use, each with the callers waiting for it.
    private let waiting = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])

    /// `body`, once no other caller runs it for `key`.
    func inTurn<T, E: Error>(_ key: String, _ body: () async throws(E) -> T) async throws(E) -> T {
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let free = waiting.withLock { waiting -> Bool in
                guard waiting[key] != nil else {
                    waiting[key] = []
                    return true
                }
                waiting[key]?.append(turn)
                return false
            }
            if free { turn.resume() }
        }
        defer { pass(key) }
        return try await body()
    }

    /// Hands `key` to the next caller waiting for it, or frees it.
    private func pass(_ key: String) {
        let next = waiting.withLock { waiting -> CheckedContinuation<Void, Never>? in
            guard let queue = waiting[key], let first = queue.first else {
                waiting[key] = nil
                return nil
            }
            waiting[key] = Array(queue.dropFirst())
            return first
        }
        next?.resume()
    }
}
