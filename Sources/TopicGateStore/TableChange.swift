/// One kind of change a statement makes to a table, as either engine reports it (SQLite's
/// update hook, the statements the PostgreSQL store runs): what `WatchedChanges` judges.
enum TableChange: Sendable, Hashable {
    case insert(String)
    case delete(String)
    /// An update of `columns` (`*` when they could not be told: every column counts).
    case update(String, columns: Set<String>)
}
