import Synchronization

/// Many publications awaited together (`MQTTClient.whenAcknowledged`): each acknowledgement
/// or give-up settles one of them, and the one waiter is called once, when the last is
/// settled, instead of once per acknowledgement.
final class AcknowledgementBatch: Sendable {
    typealias Waiter = @Sendable (_ failed: Set<Int>) -> Void

    private struct State {
        var remaining: Int
        var failed: Set<Int> = []
        var waiter: Waiter?
    }

    private let state: Mutex<State>

    /// `count` publications to settle.
    init(count: Int) { state = Mutex(State(remaining: count)) }

    /// Who is told the failed indices once the last is settled; told at once if everything is
    /// settled already.
    func wait(_ waiter: @escaping Waiter) {
        let done = state.withLock { state -> Set<Int>? in
            guard state.remaining > 0 else { return state.failed }
            state.waiter = waiter
            return nil
        }
        if let done { waiter(done) }
    }

    /// Publication `index` was acknowledged, or given up on (`acknowledged: false`).
    func settle(_ index: Int, acknowledged: Bool) {
        let resume = state.withLock { state -> (Waiter, Set<Int>)? in
            if !acknowledged { state.failed.insert(index) }
            state.remaining -= 1
            guard state.remaining == 0, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter, state.failed)
        }
        if let (waiter, failed) = resume { waiter(failed) }
    }
}
