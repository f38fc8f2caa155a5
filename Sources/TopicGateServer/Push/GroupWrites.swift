import Synchronization
import TopicGateCore

/// The outbox's group commit: messages dispatched while one write is under way wait and go
/// together in the next, so N concurrent sends cost one disk sync, not N. A batch whose write
/// fails is written again message by message, so that one bad message fails only its own
/// request.
///
/// Once a batch is written, the next one's write begins while this one is published: the
/// publication (looking up its devices, handing them to the brokers) is not in the way of the
/// next disk sync. Each caller returns once its message was written and published.
final class GroupWrites: Sendable {
    private typealias Waiter = (message: OutboxMessage, continuation: CheckedContinuation<Void, any Error>)
    typealias Write = @Sendable ([OutboxMessage]) async throws -> Void
    typealias Publish = @Sendable ([OutboxMessage]) async -> Void

    private struct State {
        var waiting: [Waiter] = []
        var writing = false
    }

    private let state = Mutex(State())

    /// Returns once `message` was written by the next group write and published: `write` writes
    /// a batch in one transaction, `publish` publishes what was written (the calls that start a
    /// writer name them).
    func add(_ message: OutboxMessage, writingWith write: @escaping Write, thenPublishing publish: @escaping Publish)
        async throws
    {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let startWriter = state.withLock { state in
                state.waiting.append((message, continuation))
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            if startWriter { Task { await self.writeWaiting(write, publish) } }
        }
    }

    /// Writes what waits as one batch, hands the writer's turn to a new task when more waits,
    /// then publishes the batch and resumes its callers.
    private func writeWaiting(_ write: @escaping Write, _ publish: @escaping Publish) async {
        let batch = state.withLock { state in
            let batch = state.waiting
            state.waiting = []
            if batch.isEmpty { state.writing = false }
            return batch
        }
        guard !batch.isEmpty else { return }
        var written: [Waiter] = []
        do {
            try await write(batch.map(\.message))
            written = batch
        } catch {
            // One bad message must not fail the others: each alone.
            for waiter in batch {
                do {
                    try await write([waiter.message])
                    written.append(waiter)
                } catch {
                    waiter.continuation.resume(throwing: error)
                }
            }
        }
        let more = state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.writing = false
                return false
            }
            return true
        }
        if more { Task { await self.writeWaiting(write, publish) } }
        guard !written.isEmpty else { return }
        await publish(written.map(\.message))
        for waiter in written { waiter.continuation.resume() }
    }
}
