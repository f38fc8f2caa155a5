internal import PostgresNIO

/// Tells every listening gateway of a change, when (and only if) the transaction commits.
struct ChangeNotice: NamedStatement {
    static let sql = "SELECT pg_notify($1, $2)"

    let channel: String
    let change: StoreChange
    /// A topic change's mark, by which the gateway that made it knows its echo (`OwnNotices`).
    var origin: String? = nil

    /// The change's payload, with the origin after a topic change's.
    var payload: String {
        guard let origin, case .topic = change else { return change.payload }
        return "\(change.payload) \(origin)"
    }

    func makeBindings() -> PostgresBindings { Self.bindings("\(channel)\(payload)") }
}
