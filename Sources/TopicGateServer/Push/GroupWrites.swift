import Synchronization
import TopicGateCore

/// The outbox's group commit: messages dispatched while one write is under way wait and go
/// together in the next, so N concurrent sends cost one disk sync, not N. A batch whose write
/// fails is written again message by message, so that one bad message fails only its own
/// request.
final class GroupWrites: Sendable {
    private typealias Waiter = (message: OutboxMessage, continuation: CheckedContinuation<Void, any Error>)

    private struct State {
        var waiting: [Waiter] = []
        var writing = false
    }

    private let state = Mutex(State())

    /// Returns once `message` was written by the next group write: `write` writes a batch in
    /// one transaction (the writer a call starts writes with its own).
    func add(_ message: OutboxMessage, writingWith write: @escaping @Sendable ([OutboxMessage]) async throws -> Void)
        async throws
    {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let startWriter = state.withLock { state in
                state.waiting.append((message, continuation))
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            if startWriter { Task { await self.writeWaiting(write) } }
        }
    }

    /// Writes what waits, batch after batch, until nothing does.
    private func writeWaiting(_ write: @Sendable ([OutboxMessage]) async throws -> Void) async {
        while true {
            let batch = state.withLock { state in
                let batch = state.waiting
                state.waiting = []
                if batch.isEmpty { state.writing = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                try await write(batch.map(\.message))
                for waiter in batch { waiter.continuation.resume() }
            } catch {
                // One bad message must not fail the others: each alone.
                for waiter in batch {
                    do {
                        try await write([waiter.message])
                        waiter.continuation.resume()
                    } catch {
                        waiter.continuation.resume(throwing: error)
                    }
                }
            }
        }
    }
}
