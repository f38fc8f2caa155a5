import Synchronization

/// What the statements of one transaction (or one autocommitted read) changed that moves a
/// generation, as `WatchedChanges` judges the tables they name. The store sets one for the
/// task that runs a transaction; the connection's statement helpers report to it.
final class TransactionChanges: Sendable {
    @TaskLocal static var current: TransactionChanges?

    private let changed = Mutex(Changed())
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
        let noted = Changed(
            access: changes.contains(where: WatchedChanges.access),
            relations: changes.contains(where: WatchedChanges.standing),
            identity: changes.contains(where: WatchedChanges.identity),
            installations: changes.contains(where: WatchedChanges.installations))
        guard noted.access || noted.installations else { return }
        changed.withLock { $0.add(noted) }
    }

    /// The feed's changes for what was noted (none: nothing watched changed): `access` when a
    /// token holder or an app may have changed, `relations` when what a principal belongs to or
    /// owns did, `listeners` when only subscriptions or topics did.
    var feedChanges: [StoreChange] {
        let changed = changed.withLock { $0 }
        let access: [StoreChange] =
            changed.identity ? [.access] : changed.relations ? [.relations] : changed.access ? [.listeners] : []
        return access + (changed.installations ? [.installations] : [])
    }

    /// Which generations the noted statements move (`relations` implies `access`, `identity`
    /// implies both).
    private struct Changed {
        var access = false
        var relations = false
        var identity = false
        var installations = false

        mutating func add(_ other: Changed) {
            access = access || other.access
            relations = relations || other.relations
            identity = identity || other.identity
            installations = installations || other.installations
        }
    }

    /// A change among topics, announced by `advance`.
    func note(_ change: TopicChange) {
        topics.withLock { $0.append(change) }
    }

    /// Moves on the generations of what was noted, and tells the topic cache.
    func advance(_ generations: StoreGenerations) {
        let changed = changed.withLock { $0 }
        if changed.identity { generations.identity.advance() }
        if changed.relations { generations.relations.advance() }
        if changed.access { generations.access.advance() }
        if changed.installations { generations.installations.advance() }
        for change in topics.withLock({ $0 }) { generations.topics.announce(change) }
    }
}
