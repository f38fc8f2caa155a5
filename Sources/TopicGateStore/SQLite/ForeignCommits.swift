import GRDB

/// Commits made on the same file by another process (the CLI's `apps reset-secret`, a second
/// process), noticed within `interval`: SQLite's `PRAGMA data_version` on a connection moves
/// only when another connection committed, and the writer's connection is the only one of this
/// process that commits. Each move advances `generations` and tells the topic cache, so the
/// caches drop what they kept and read the database again.
final class ForeignCommits: Sendable {
    private let task: Task<Void, Never>

    init(
        pool: DatabasePool, generations: [AccessGeneration], topics: TopicChangeSignal,
        interval: Duration = .milliseconds(200)
    ) {
        // Where the file stood when the store opened, read now: another process's commit an
        // instant later is noticed however late the first turn of the loop comes.
        let opened = try? pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
        task = Task.detached(priority: .utility) {
            var seen = opened ?? nil
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard
                    let version = try? await pool.writeWithoutTransaction({ db in
                        try Int.fetchOne(db, sql: "PRAGMA data_version")
                    })
                else { continue }
                if let seen, seen != version {
                    for generation in generations { generation.advance() }
                    topics.announce(.all)
                }
                seen = version
            }
        }
    }

    deinit { task.cancel() }
}
