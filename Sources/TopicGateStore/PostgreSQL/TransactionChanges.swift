import Synchronization

/// What the statements of one transaction (or one autocommitted read) changed that moves a
/// generation, as `WatchedChanges` judges the tables they name. The store sets one for the
/// task that runs a transaction; the connection's statement helpers report to it.
final class TransactionChanges: Sendable {
    @TaskLocal static var current: TransactionChanges?

    private let changed = Mutex<(access: Bool, identity: Bool, installations: Bool)>((false, false, false))
    private let commitAsked = Atomic<Bool>(false)
    /// What the transaction changed among topics (`PostgresStore.notify`).
    private let topics = Mutex<[TopicChange]>([])

    /// Set once the commit is asked for (or the statements commit on their own): from then on
    /// what was noted may have committed.
    var committing: Bool {
        get { commitAsked.load(ordering: .acquiring) }
        set { commitAsked.store(newValue, ordering: .releasing) }
    }

    /// Reads what `sql` changed, once it ran and `returned` rows: a single statement with
    /// `RETURNING` that returned none changed no row (`ON CONFLICT DO NOTHING`, a delete that found
    /// nothing). One with a `WITH` may have changed rows in it whatever it returned.
    func note(_ sql: String, returned: Int) {
        if returned == 0, sql.contains("RETURNING"), !sql.utf8.starts(with: "WITH".utf8) { return }
        let changes = StatementChanges.of(sql)
        guard !changes.isEmpty else { return }
        let access = changes.contains(where: WatchedChanges.access)
        let identity = changes.contains(where: WatchedChanges.identity)
        let installations = changes.contains(where: WatchedChanges.installations)
        guard access || installations else { return }
        changed.withLock { changed in
            changed.access = changed.access || access
            changed.identity = changed.identity || identity
            changed.installations = changed.installations || installations
        }
    }

    /// The feed's changes for what was noted (none: nothing watched changed): `access` when a
    /// token holder or an app may have changed, `relations` when only what else decides access did.
    var feedChanges: [StoreChange] {
        let (access, identity, installations) = changed.withLock { $0 }
        return (identity ? [.access] : access ? [.relations] : []) + (installations ? [.installations] : [])
    }

    /// A change among topics, announced by `advance`.
    func note(_ change: TopicChange) {
        topics.withLock { $0.append(change) }
    }

    /// Moves on the generations of what was noted, and tells the topic cache.
    func advance(_ generations: StoreGenerations) {
        let changed = changed.withLock { $0 }
        if changed.identity { generations.identity.advance() }
        if changed.access { generations.access.advance() }
        if changed.installations { generations.installations.advance() }
        for change in topics.withLock({ $0 }) { generations.topics.announce(change) }
    }
}
