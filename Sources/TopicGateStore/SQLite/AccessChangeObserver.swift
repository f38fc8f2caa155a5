import GRDB

/// Watches the SQLite writer for changes that can alter access (see `AccessGeneration`) and
/// advances the generation when a transaction holding one commits, on the writer, before the
/// write returns. Inserts of users, things and tokens are not such changes: nothing cached can
/// name a row before it exists. Any update of a user but its last-seen time is one (the gateway
/// keeps the users it serves `users/me` from, too).
final class AccessChangeObserver: TransactionObserver {
    let generation: AccessGeneration
    /// Whether the transaction under way changed something watched (only touched on the
    /// writer's queue).
    private var changed = false

    init(generation: AccessGeneration) { self.generation = generation }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        switch eventKind {
        case .insert(let table):
            return Self.membershipTables.contains(table)
        case .delete(let table):
            return Self.membershipTables.contains(table) || Self.principalTables.contains(table)
        case .update(let table, let columns):
            if Self.membershipTables.contains(table) || table == "tokens" { return true }
            if table == "users" { return columns.contains { $0 != "last_seen_at" } }
            return table == "things" && columns.contains("disabled")
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

    /// Rows whose every change matters: who belongs to what, who owns what, who listens where.
    static let membershipTables: Set<String> = ["group_members", "thing_owners", "subscriptions", "topics", "groups"]
    /// Rows whose deletion matters (with their tokens, memberships and subscriptions).
    static let principalTables: Set<String> = ["users", "things", "tokens"]
}
