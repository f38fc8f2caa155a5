import GRDB

/// Copies the write-ahead log into the database file from a connection of its own, every
/// `interval`, so that the writer hardly has to: SQLite's automatic checkpoint runs inside the
/// commit that crosses its threshold and copies and syncs the database file while every other
/// write waits (tens of milliseconds on a slow disk, at the default threshold every 4 MiB of
/// log: that wait becomes the p99 of sends and command round trips). The writer's own checkpoint stays, far rarer (see
/// `SQLiteStore.init`), because only it can start the log over: under steady writes new pages
/// arrive between a background checkpoint and the next write.
final class BackgroundCheckpoint: Sendable {
    private let task: Task<Void, Never>

    /// `commits` counts the writer's commits: a store that committed nothing since the last
    /// checkpoint is left alone (an idle gateway does not touch its disk ten times a second).
    init(path: String, commits: @escaping @Sendable () -> UInt64, interval: Duration = .milliseconds(100)) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        let connection = try DatabaseQueue(path: path, configuration: configuration)
        task = Task.detached(priority: .utility) {
            var checkpointed: UInt64 = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                let committed = commits()
                guard committed != checkpointed else { continue }
                // Passive: never waits for the writer or readers; what it could not copy now
                // is copied next time.
                if (try? await connection.writeWithoutTransaction({ db in try db.checkpoint(.passive) })) != nil {
                    checkpointed = committed
                }
            }
        }
    }

    deinit { task.cancel() }
}
