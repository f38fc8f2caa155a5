import GRDB

/// Watches the SQLite writer for the changes `watched` picks (see `WatchedChanges`) and
/// advances `generation` when a transaction holding one commits, on the writer, before the
/// write returns.
final class GenerationObserver: TransactionObserver {
    let generation: AccessGeneration
    let watched: @Sendable (TableChange) -> Bool
    /// Whether the transaction under way changed something watched (only touched on the
    /// writer's queue).
    private var changed = false

    init(generation: AccessGeneration, watching watched: @escaping @Sendable (TableChange) -> Bool) {
        self.generation = generation
        self.watched = watched
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        switch eventKind {
        case .insert(let table): watched(.insert(table))
        case .delete(let table): watched(.delete(table))
        case .update(let table, let columns): watched(.update(table, columns: columns))
        }
    }

    func databaseDidChange(with event: DatabaseEvent) {
        changed = true
        stopObservingDatabaseChangesUntilNextTransaction()
    }

    func databaseDidCommit(_ db: Database) {
        if changed { generation.advance() }
        changed = false
    }

    func databaseDidRollback(_ db: Database) { changed = false }
}
