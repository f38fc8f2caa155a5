import Synchronization

/// Holds whoever waits on it until opened, without polling: under the suite's load a polling
/// task would take the threads other tests wait for.
public final class Gate: Sendable {
    private let state = Mutex<(opened: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    public init() {}

    public func open() {
        let waiting = state.withLock { state in
            state.opened = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let opened = state.withLock { state in
                if !state.opened { state.waiting.append(continuation) }
                return state.opened
            }
            if opened { continuation.resume() }
        }
    }
}
