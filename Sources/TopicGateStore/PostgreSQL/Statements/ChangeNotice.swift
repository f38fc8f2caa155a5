internal import PostgresNIO

/// Tells every listening gateway of a change, when (and only if) the transaction commits.
struct ChangeNotice: NamedStatement {
    static let sql = "SELECT pg_notify($1, $2)"

    let channel: String
    let change: StoreChange

    func makeBindings() -> PostgresBindings { Self.bindings("\(channel)\(change.payload)") }
}
