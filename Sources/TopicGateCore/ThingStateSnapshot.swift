/// A thing's latest state as a trigger's condition reads it: the plain state and each trait
/// alias's latest state.
public struct ThingStateSnapshot: Sendable, Hashable {
    public var plain: [String: JSONValue]?
    public var aliases: [String: [String: JSONValue]]

    public init(plain: [String: JSONValue]? = nil, aliases: [String: [String: JSONValue]] = [:]) {
        self.plain = plain
        self.aliases = aliases
    }

    /// The latest of `records` for each alias (and the plain state): later records win.
    public init(_ records: [ThingStateRecord]) {
        self.init()
        for record in records.sorted(by: { $0.recordedAt < $1.recordedAt }) {
            if let alias = record.alias { aliases[alias] = record.state } else { plain = record.state }
        }
    }

    /// This snapshot with `records` laid over it.
    public func updated(with records: [ThingStateRecord]) -> ThingStateSnapshot {
        var snapshot = self
        for record in records {
            if let alias = record.alias {
                snapshot.aliases[alias] = record.state
            } else {
                snapshot.plain = record.state
            }
        }
        return snapshot
    }
}
