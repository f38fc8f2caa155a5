import Synchronization

/// Many publications awaited together (`MQTTClient.unacknowledged`): each acknowledgement or
/// give-up settles one of them, and the one waiting task is resumed once, when the last is
/// settled, instead of once per acknowledgement.
final class AcknowledgementBatch: Sendable {
    private struct State {
        var remaining: Int
        var failed: Set<Int> = []
        var waiter: CheckedContinuation<Set<Int>, Never>?
    }

    private let state: Mutex<State>

    /// `count` publications to settle.
    init(count: Int) { state = Mutex(State(remaining: count)) }

    /// The waiting task; resumed at once if everything is settled already.
    func wait(_ waiter: CheckedContinuation<Set<Int>, Never>) {
        let done = state.withLock { state -> Set<Int>? in
            guard state.remaining > 0 else { return state.failed }
            state.waiter = waiter
            return nil
        }
        if let done { waiter.resume(returning: done) }
    }

    /// Publication `index` was acknowledged, or given up on (`acknowledged: false`).
    func settle(_ index: Int, acknowledged: Bool) {
        let resume = state.withLock { state -> (CheckedContinuation<Set<Int>, Never>, Set<Int>)? in
            if !acknowledged { state.failed.insert(index) }
            state.remaining -= 1
            guard state.remaining == 0, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter, state.failed)
        }
        if let (waiter, failed) = resume { waiter.resume(returning: failed) }
    }
}
