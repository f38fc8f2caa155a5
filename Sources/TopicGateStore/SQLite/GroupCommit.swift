import GRDB
import Synchronization

/// Group commit on SQLite's one writer: the writes that arrive while a transaction is being
/// synced to disk wait and then go together, each in a savepoint of one transaction, so that N
/// concurrent writes cost one disk sync instead of N. A write that fails rolls back its own
/// savepoint only; the others commit. Each caller returns once the transaction holding its
/// write is on disk (or failed), never before.
final class GroupCommit: Sendable {
    /// One waiting write: runs in its savepoint, then is told how the commit went.
    private struct Write: Sendable {
        let apply: @Sendable (Database) -> Void
        let finish: @Sendable ((any Error)?) -> Void
    }

    private struct State {
        var waiting: [Write] = []
        var writing = false
    }

    private let pool: DatabasePool
    private let state = Mutex(State())
    private let commitCount = Atomic<UInt64>(0)
    /// At most this many writes share a transaction (a long one would hold the first ones up).
    let batchLimit: Int

    init(pool: DatabasePool, batchLimit: Int = 256) {
        self.pool = pool
        self.batchLimit = batchLimit
    }

    /// Transactions committed so far (for `BackgroundCheckpoint`, which skips an idle store).
    var commits: UInt64 { commitCount.load(ordering: .relaxed) }

    func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let outcome = Outcome<T>()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let write = Write(
                apply: { db in
                    do {
                        try db.inSavepoint {
                            outcome.set(.success(try updates(db)))
                            return .commit
                        }
                    } catch {
                        outcome.set(.failure(error))
                    }
                },
                finish: { commitError in
                    if let commitError {
                        continuation.resume(throwing: commitError)
                    } else {
                        continuation.resume(with: outcome.take())
                    }
                })
            let startWriter = state.withLock { state in
                state.waiting.append(write)
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            if startWriter { Task { await self.writeWaiting() } }
        }
    }

    /// Commits what waits, batch after batch, until nothing does.
    private func writeWaiting() async {
        while true {
            let batch = state.withLock { state in
                let batch = Array(state.waiting.prefix(batchLimit))
                state.waiting.removeFirst(batch.count)
                if batch.isEmpty { state.writing = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                try await pool.writeWithoutTransaction { db in
                    try db.inTransaction(.immediate) {
                        for write in batch { write.apply(db) }
                        return .commit
                    }
                }
                commitCount.add(1, ordering: .relaxed)
                for write in batch { write.finish(nil) }
            } catch {
                for write in batch { write.finish(error) }
            }
        }
    }

    /// A write's result, set on the writer and read once its transaction ended.
    private final class Outcome<T: Sendable>: Sendable {
        private let result = Mutex<Result<T, any Error>?>(nil)

        func set(_ value: Result<T, any Error>) { result.withLock { $0 = value } }

        func take() -> Result<T, any Error> {
            result.withLock { $0 } ?? .failure(DatabaseError(message: "a grouped write left no result"))
        }
    }
}
