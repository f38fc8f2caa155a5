import Synchronization

/// Wakes one waiting task: signals that arrive while nobody waits are kept (as one).
final class Wakeup: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.pending = true
            return nil
        }
        waiter?.resume()
    }

    /// Returns at the next signal (at once if one is pending) or after `duration`.
    /// One waiter at a time.
    func wait(upTo duration: Duration) async {
        let timer = Task {
            guard (try? await Task.sleep(for: duration)) != nil else { return }
            self.signal()
        }
        defer { timer.cancel() }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.pending {
                    state.pending = false
                    return true
                }
                state.waiter = waiter
                return false
            }
            if now { waiter.resume() }
        }
    }
}
