/// A STATES trigger's condition, as Kii's Thing-IF SDKs send it: `eq`, `not` (of an `eq`),
/// `range`, `and`, `or`; in the trait form each leaf names its `alias`, in the schema form none
/// does (the thing's plain state). A leaf compares one top-level field of the thing's latest
/// state (of that alias) with Kii's query semantics (`QueryClause.matches`).
public indirect enum TriggerClause: Sendable, Hashable {
    /// `eq` or `range` on `alias`'s state (nil: the plain state).
    case leaf(alias: String?, QueryClause)
    case not(TriggerClause)
    case and([TriggerClause])
    case or([TriggerClause])

    public static let maximumClauses = 100

    /// Reads a condition; `WRONG_PREDICATE` naming what is wrong.
    public init(json: JSONValue) throws(KiiError) {
        var count = 0
        self = try Self.read(json, count: &count)
    }

    private static func read(_ json: JSONValue, count: inout Int) throws(KiiError) -> TriggerClause {
        count += 1
        guard count <= maximumClauses else {
            throw wrong("A trigger's condition has at most \(maximumClauses) clauses.")
        }
        guard let object = json.objectValue, let type = object["type"]?.stringValue else {
            throw wrong("A condition clause is an object with a 'type'.")
        }
        switch type {
        case "eq", "range":
            var leaf = object
            let alias = leaf.removeValue(forKey: "alias")
            if let alias, !alias.isNull, !(alias.stringValue.map(IDSyntax.isWellFormed) ?? false) {
                throw wrong("A clause's 'alias' is a trait alias name.")
            }
            do {
                return .leaf(alias: alias?.stringValue, try QueryClause(json: .object(leaf)))
            } catch {
                throw wrong(error.message)
            }
        case "not":
            guard let inner = object["clause"] else { throw wrong("A 'not' clause has a 'clause'.") }
            return .not(try read(inner, count: &count))
        case "and", "or":
            guard let list = object["clauses"]?.arrayValue, !list.isEmpty else {
                throw wrong("An '\(type)' clause has a non-empty 'clauses' list.")
            }
            var clauses: [TriggerClause] = []
            for element in list { clauses.append(try read(element, count: &count)) }
            return type == "and" ? .and(clauses) : .or(clauses)
        default:
            throw wrong("Unknown condition clause '\(type)': eq, not, range, and, or.")
        }
    }

    static func wrong(_ message: String) -> KiiError {
        KiiError(.wrongPredicate, message, context: ["field": "condition"])
    }

    /// True when `state` satisfies the condition.
    public func matches(_ state: ThingStateSnapshot) -> Bool {
        switch self {
        case .leaf(let alias, let clause):
            return clause.matches((alias.map { state.aliases[$0] } ?? state.plain) ?? [:])
        case .not(let clause): return !clause.matches(state)
        case .and(let clauses): return clauses.allSatisfy { $0.matches(state) }
        case .or(let clauses): return clauses.contains { $0.matches(state) }
        }
    }

    /// The trait aliases the condition reads (nil in the set: the plain state).
    public var aliases: Set<String?> {
        switch self {
        case .leaf(let alias, _): [alias]
        case .not(let clause): clause.aliases
        case .and(let clauses), .or(let clauses): clauses.reduce(into: []) { $0.formUnion($1.aliases) }
        }
    }
}
