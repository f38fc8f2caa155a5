import Synchronization

/// Wakes one waiting task: signals that arrive while nobody waits are kept (as one). A waiter
/// also wakes at the latest at the next tick, so a loop that waits here still looks around
/// every `tick` when nothing signals; one timer ticks for the life of the `Wakeup`, where a
/// timer per wait would cost a task and a cancellation on every wake-up.
final class Wakeup: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
        var ticker: Task<Void, Never>?
    }

    private let state = Mutex(State())
    let tick: Duration

    init(tick: Duration = .seconds(1)) { self.tick = tick }

    deinit { state.withLock { $0.ticker?.cancel() } }

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

    /// Returns at the next signal (at once if one is pending) or at the next tick, within
    /// `tick` from now. One waiter at a time.
    func wait() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.ticker == nil {
                    let tick = self.tick
                    state.ticker = Task { [weak self] in
                        while (try? await Task.sleep(for: tick)) != nil {
                            guard let self else { return }
                            self.signal()
                        }
                    }
                }
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
