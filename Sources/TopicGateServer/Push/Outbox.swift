import Synchronization
import TopicGateCore
import TopicGateStore

/// The way to devices: writes a message to the durable outbox (so that whoever enqueued it may
/// answer its request once it survives a crash) and wakes the delivery service.
///
/// Group commit: while one transaction is being synced to disk, the messages that arrive wait
/// and go together in the next one, so that N concurrent sends cost one sync, not N. Each
/// caller still returns only once its own message is on disk.
final class Outbox: Sendable {
    private typealias Waiter = (message: OutboxMessage, continuation: CheckedContinuation<Void, any Error>)

    private struct State {
        var waiting: [Waiter] = []
        var writing = false
    }

    let store: any OutboxStore
    let wakeup: Wakeup
    private let state = Mutex(State())

    init(store: any OutboxStore, wakeup: Wakeup) {
        self.store = store
        self.wakeup = wakeup
    }

    func enqueue(_ message: OutboxMessage) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let startWriter = state.withLock { state in
                state.waiting.append((message, continuation))
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            if startWriter { Task { await self.writeWaiting() } }
        }
        wakeup.signal()
    }

    /// Writes what waits, batch after batch, until nothing does.
    private func writeWaiting() async {
        while true {
            let batch = state.withLock { state in
                let batch = state.waiting
                state.waiting = []
                if batch.isEmpty { state.writing = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                try await store.enqueue(batch.map(\.message))
                for waiter in batch { waiter.continuation.resume() }
            } catch {
                // One bad message must not fail the others: each alone.
                for waiter in batch {
                    do {
                        try await store.enqueue([waiter.message])
                        waiter.continuation.resume()
                    } catch {
                        waiter.continuation.resume(throwing: error)
                    }
                }
            }
        }
    }
}
