extension QueryClause {
    /// True when `object` (a state, or one alias's state) satisfies the clause: `eq` and `in`
    /// compare numbers by value (1 equals 1.0), `range` orders numbers by value and strings by
    /// their bytes, a missing field or a value of another kind never matches a comparison, and
    /// `not` is true wherever its clause is false. The same clauses Kii's queries take, evaluated
    /// in memory (state history queries, trigger conditions).
    public func matches(_ object: [String: JSONValue]) -> Bool {
        switch self {
        case .all: return true
        case .eq(let field, let value): return object[field].map { Self.same($0, value) } ?? false
        case .prefix(let field, let prefix): return object[field]?.stringValue?.hasPrefix(prefix) ?? false
        case .range(let field, let lower, let upper):
            guard let value = object[field] else { return false }
            if let lower {
                guard let order = Self.order(value, lower.value), order > 0 || order == 0 && lower.included else {
                    return false
                }
            }
            if let upper {
                guard let order = Self.order(value, upper.value), order < 0 || order == 0 && upper.included else {
                    return false
                }
            }
            return true
        case .among(let field, let values):
            guard let value = object[field] else { return false }
            return values.contains { Self.same(value, $0) }
        case .hasField(let field, let type):
            switch (object[field], type) {
            case (.string?, .string), (.int?, .integer), (.bool?, .boolean): return true
            case (.double?, .decimal), (.int?, .decimal): return true
            default: return false
            }
        case .not(let clause): return !clause.matches(object)
        case .and(let clauses): return clauses.allSatisfy { $0.matches(object) }
        case .or(let clauses): return clauses.contains { $0.matches(object) }
        case .contains(let field, let value):
            return object[field]?.arrayValue?.contains(.string(value)) ?? false
        }
    }

    /// Equal values; numbers by value whatever their JSON form.
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if case .int = a, case .int = b { return a == b }
        if let x = a.doubleValue, let y = b.doubleValue { return x == y }
        return a == b
    }

    /// -1, 0 or 1 as `a` is below, at or above `b`; nil when they are not of one kind.
    static func order(_ a: JSONValue, _ b: JSONValue) -> Int? {
        if case .int(let x) = a, case .int(let y) = b { return x < y ? -1 : x == y ? 0 : 1 }
        if let x = a.doubleValue, let y = b.doubleValue { return x < y ? -1 : x == y ? 0 : 1 }
        if case .string(let x) = a, case .string(let y) = b {
            return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : x == y ? 0 : 1
        }
        return nil
    }
}
