/// A trait thing's state report: `PUT …/states` with `MultipleTraitState+json`
/// (`{"<alias>": {…}, …}`, every alias at once) or `PUT …/states/aliases/{alias}` with
/// `TraitState+json` (one alias's state object). Aliases are 1 to 128 letters, digits, `-`, `_`
/// and `.`; each alias's state is a non-empty JSON object.
public struct TraitStateReport: Sendable, Hashable {
    /// Each alias's state, in alias order.
    public var states: [(alias: String, state: [String: JSONValue])] {
        byAlias.keys.sorted().map { ($0, byAlias[$0] ?? [:]) }
    }
    private var byAlias: [String: [String: JSONValue]]

    /// Every alias at once.
    public init(aliases body: [String: JSONValue]) throws(KiiError) {
        guard !body.isEmpty else { throw KiiError(.emptyBody, "The state is empty.") }
        var byAlias: [String: [String: JSONValue]] = [:]
        for (alias, value) in body {
            try Self.check(alias)
            guard let state = value.objectValue, !state.isEmpty else {
                throw KiiError.invalidInput(
                    "In a MultipleTraitState each alias names a non-empty state object; '\(alias)' does not.",
                    field: alias)
            }
            byAlias[alias] = state
        }
        self.byAlias = byAlias
    }

    /// One alias.
    public init(alias: String, body: [String: JSONValue]) throws(KiiError) {
        try Self.check(alias)
        byAlias = [alias: try ThingStateRecord.validate(body.isEmpty ? nil : .object(body))]
    }

    /// True when `body` reads as every alias at once: only alias names, each with an object.
    public static func isAliasMap(_ body: [String: JSONValue]) -> Bool {
        !body.isEmpty && body.allSatisfy { IDSyntax.isWellFormed($0.key) && $0.value.objectValue?.isEmpty == false }
    }

    static func check(_ alias: String) throws(KiiError) {
        guard IDSyntax.isWellFormed(alias) else {
            throw KiiError.invalidInput(
                "A trait alias is 1 to 128 letters, digits, '-', '_' and '.', not '\(alias)'.", field: "alias")
        }
    }

    public static func == (lhs: TraitStateReport, rhs: TraitStateReport) -> Bool { lhs.byAlias == rhs.byAlias }
    public func hash(into hasher: inout Hasher) { hasher.combine(byAlias) }
}
