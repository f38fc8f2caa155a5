import Foundation
import GRDB
import Synchronization

/// Group commit on SQLite's one writer: the writes that arrive while a transaction is being
/// synced to disk wait and then go together, each in a savepoint of one transaction, so that N
/// concurrent writes cost one disk sync instead of N. A write that fails rolls back its own
/// savepoint only; the others commit. Each caller returns once the transaction holding its
/// write is on disk (or failed), never before.
///
/// A write that finds nobody writing and nothing waiting is committed at once on its caller's
/// thread, as LevelDB's front writer does: no other thread is woken and nothing is resumed
/// (each costs tens of microseconds, and a command's round trip would pay four). The writes
/// that arrive meanwhile wait for a thread of the store's own, woken for them: they reach
/// SQLite in one wake-up of that thread, and each caller is resumed once. So an idle store
/// answers a write in one commit's time, and a busy one still groups its writes; at most one
/// caller's thread in the whole process is held by a commit at a time.
///
/// A write that need not survive a crash (`synced: false`: bookkeeping that a crash only makes
/// the gateway redo, such as removing delivered pushes from the outbox) is committed without a
/// sync of its own when its transaction holds nothing else (`synchronous = NORMAL` for that
/// commit); the next synced commit, or checkpoint, takes it to disk. A crash before that loses it
/// with every later unsynced write, never an earlier one: the log is written in order. A
/// transaction holding any synced write is synced.
final class GroupCommit: Sendable {
    private let writer: Writer

    init(pool: DatabasePool, batchLimit: Int = 256) {
        writer = Writer(pool: pool, batchLimit: batchLimit)
        let writer = self.writer
        let thread = Thread { writer.run() }
        thread.name = "topicgate-sqlite-writer"
        thread.start()
    }

    /// The writer thread ends once it wrote what waits.
    deinit { writer.close() }

    /// Transactions committed so far (for `BackgroundCheckpoint`, which skips an idle store).
    var commits: UInt64 { writer.commitCount.load(ordering: .relaxed) }

    /// Runs `updates` in a transaction; returns once it committed (and, when `synced`, once it is
    /// on disk).
    func write<T: Sendable>(synced: Bool = true, _ updates: @escaping @Sendable (Database) throws -> T)
        async throws -> T
    {
        // Nobody writes and nothing waits: this caller commits its write on its own thread, at
        // once (no wake-up of the writer's thread, no resumption after it); what arrives
        // meanwhile waits for the writer's thread as usual.
        if writer.leadIfIdle() {
            defer { writer.endLead() }
            return try writer.commitAlone(synced: synced, updates)
        }
        let outcome = Outcome<T>()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            writer.submit(
                Write(
                    synced: synced,
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
                    }))
        }
    }

    /// One waiting write: runs in its savepoint, then is told how the commit went.
    private struct Write: Sendable {
        let synced: Bool
        let apply: @Sendable (Database) -> Void
        let finish: @Sendable ((any Error)?) -> Void
    }

    /// What the writer thread holds (not the `GroupCommit`, so that its end closes the thread).
    private final class Writer: Sendable {
        private struct State {
            var waiting: [Write] = []
            /// The thread was woken, or is writing: the next write needs no wake-up.
            var writing = false
            var closed = false
        }

        let pool: DatabasePool
        /// At most this many writes share a transaction (a long one would hold the first ones up).
        let batchLimit: Int
        let commitCount = Atomic<UInt64>(0)
        /// Whether the writer's connection is at `synchronous = NORMAL` now (an unsynced
        /// write's commit set it); a synced commit sets `FULL` first. Read and set only by whoever
        /// holds the writer's turn (handed over through `state` and the pool's writer queue).
        private let atNormal = Atomic<Bool>(false)
        private let state = Mutex(State())
        private let wake = DispatchSemaphore(value: 0)

        init(pool: DatabasePool, batchLimit: Int) {
            self.pool = pool
            self.batchLimit = batchLimit
        }

        func submit(_ write: Write) {
            let wakeWriter = state.withLock { state in
                state.waiting.append(write)
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            if wakeWriter { wake.signal() }
        }

        /// Whether some caller's thread, of any store of this process, is held by its own commit:
        /// one at a time, so that commits on callers' threads can never hold up every thread of
        /// the cooperative pool at once (a process with many stores, as the tests have).
        private static let callerCommitting = Atomic<Bool>(false)

        /// Takes the writer's turn when nobody writes and nothing waits (and no other store's
        /// caller commits on its own thread).
        func leadIfIdle() -> Bool {
            guard Self.callerCommitting.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
            else { return false }
            let leads = state.withLock { state in
                guard !state.writing, state.waiting.isEmpty, !state.closed else { return false }
                state.writing = true
                return true
            }
            if !leads { Self.callerCommitting.store(false, ordering: .releasing) }
            return leads
        }

        /// After a caller's own commit: the writer's thread takes what arrived meanwhile.
        func endLead() {
            Self.callerCommitting.store(false, ordering: .releasing)
            let wakeWriter = state.withLock { state in
                guard state.waiting.isEmpty else { return true }
                state.writing = false
                return false
            }
            if wakeWriter { wake.signal() }
        }

        func close() {
            let wakeWriter = state.withLock { state in
                state.closed = true
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            if wakeWriter { wake.signal() }
        }

        /// The thread's body: commits what waits, batch after batch, sleeps until woken, and
        /// ends once closed with nothing waiting.
        func run() {
            while true {
                wake.wait()
                while true {
                    let (batch, closed) = state.withLock { state in
                        let batch = Array(state.waiting.prefix(batchLimit))
                        state.waiting.removeFirst(batch.count)
                        if batch.isEmpty { state.writing = false }
                        return (batch, state.closed)
                    }
                    if batch.isEmpty {
                        if closed { return }
                        break
                    }
                    commit(batch)
                }
            }
        }

        /// One write in a transaction of its own, on the caller's thread: no savepoint, since a
        /// failed write rolls back the transaction that holds nothing else.
        func commitAlone<T>(synced: Bool, _ updates: (Database) throws -> T) throws -> T {
            let value = try pool.writeWithoutTransaction { db in
                try setLevel(db, synced: synced)
                var value: T?
                try db.inTransaction(.immediate) {
                    value = try updates(db)
                    return .commit
                }
                return value
            }
            commitCount.add(1, ordering: .relaxed)
            guard let value else { throw DatabaseError(message: "a write left no result") }
            return value
        }

        /// The connection's sync level for the next commit: `FULL` for a synced one (or the
        /// transaction fails before it begins), `NORMAL` for one that holds only unsynced writes
        /// (which stays `FULL` should that fail: synced more than asked).
        private func setLevel(_ db: Database, synced: Bool) throws {
            guard atNormal.load(ordering: .relaxed) == synced else { return }  // at the level asked for
            if synced {
                try db.execute(sql: "PRAGMA synchronous = FULL")
                atNormal.store(false, ordering: .relaxed)
            } else if (try? db.execute(sql: "PRAGMA synchronous = NORMAL")) != nil {
                atNormal.store(true, ordering: .relaxed)
            }
        }

        private func commit(_ batch: [Write]) {
            do {
                try pool.writeWithoutTransaction { db in
                    try setLevel(db, synced: batch.contains(where: \.synced))
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
