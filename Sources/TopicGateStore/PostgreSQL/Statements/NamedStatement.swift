internal import PostgresNIO

/// A statement of the hot path, sent as a named prepared statement: each connection of the pool
/// parses it once, and PostgreSQL may plan it once for all its values (a generic plan, after five
/// executions, when it costs no more than planning each time). The rest of the store sends
/// unnamed statements, parsed and planned on every execution; for the point reads of a request
/// that planning took longer than running them.
///
/// A named statement names the columns it reads, never `*`: PostgreSQL refuses to run a prepared
/// statement whose result changed, and a newer gateway's migration may add a column while this
/// one still runs. Its parameters are `$1`, `$2`, … in the order `makeBindings` gives them.
protocol NamedStatement: PostgresPreparedStatement where Row == PostgresColumns {}

extension NamedStatement {
    func decodeRow(_ row: PostgresRow) -> PostgresColumns { PostgresColumns(row: row.makeRandomAccess()) }

    /// The values of `parameters`, bound as the store binds any value (identifiers as text, times
    /// as integers): `Self.bindings("\(appID)\(id)")` for `$1` and `$2`.
    static func bindings(_ parameters: PostgresQuery) -> PostgresBindings { parameters.binds }
}

/// The head of a statement whose transaction (the statement alone) commits without waiting for
/// PostgreSQL's log to reach the disk (`SET LOCAL synchronous_commit = off`, as
/// `set_config(…, true)`): a settlement that a crash of the server may undo and the gateway then
/// redoes. PostgreSQL applies the setting in force when a transaction commits; a crash loses a
/// suffix of such commits, never one before a commit that was waited for. The statement must
/// read `unsynced` (`AND EXISTS (SELECT FROM unsynced)`), or the setting is never made.
let withoutWaitingForTheLog = "WITH unsynced AS (SELECT set_config('synchronous_commit', 'off', true))"
