/// One clause of Kii's query language, as bucket, thing and user queries send it
/// (`{"type": "eq", "field": …, "value": …}` and the others), read and checked: at most
/// `maximumDepth` levels, `maximumClauses` clauses in all and `maximumValues` values in an `in`.
public indirect enum QueryClause: Sendable, Hashable {
    case all
    case eq(field: String, value: JSONValue)
    case prefix(field: String, prefix: String)
    case range(field: String, lower: Bound?, upper: Bound?)
    case among(field: String, values: [JSONValue])
    case hasField(field: String, type: FieldType)
    case not(QueryClause)
    case and([QueryClause])
    case or([QueryClause])
    /// `contains`: a list field (a thing's `userOwners`, `groupOwners`) holds the value.
    case contains(field: String, value: String)

    public struct Bound: Sendable, Hashable {
        public var value: JSONValue
        public var included: Bool
    }

    public enum FieldType: String, Sendable, Hashable {
        case string = "STRING"
        case integer = "INTEGER"
        case decimal = "DECIMAL"
        case boolean = "BOOLEAN"
    }

    public static let maximumDepth = 10
    public static let maximumClauses = 200
    public static let maximumValues = 200

    /// Reads a clause; `INVALID_INPUT_DATA` naming what is wrong.
    public init(json: JSONValue) throws(KiiError) {
        var count = 0
        self = try Self.read(json, depth: 1, count: &count)
    }

    private static func read(_ json: JSONValue, depth: Int, count: inout Int) throws(KiiError) -> QueryClause {
        count += 1
        guard depth <= maximumDepth, count <= maximumClauses else {
            throw invalid("A query has at most \(maximumClauses) clauses, nested at most \(maximumDepth) deep.")
        }
        guard let object = json.objectValue, let type = object["type"]?.stringValue else {
            throw invalid("A clause is an object with a 'type'.")
        }
        func field() throws(KiiError) -> String {
            guard let field = object["field"]?.stringValue, !field.isEmpty, field.count <= 128 else {
                throw invalid("A '\(type)' clause needs a 'field'.")
            }
            return field
        }
        func scalar(_ value: JSONValue?, _ name: String) throws(KiiError) -> JSONValue {
            switch value {
            case .string?, .int?, .double?, .bool?: return value!
            default: throw invalid("A '\(type)' clause needs a string, number or boolean '\(name)'.")
            }
        }
        func nested(_ key: String) throws(KiiError) -> [QueryClause] {
            guard let list = object[key]?.arrayValue, !list.isEmpty else {
                throw invalid("An '\(type)' clause needs a non-empty '\(key)' list.")
            }
            var clauses: [QueryClause] = []
            for element in list { clauses.append(try read(element, depth: depth + 1, count: &count)) }
            return clauses
        }
        switch type {
        case "all": return .all
        case "eq": return .eq(field: try field(), value: try scalar(object["value"], "value"))
        case "prefix":
            guard let prefix = object["prefix"]?.stringValue else {
                throw invalid("A 'prefix' clause needs a 'prefix'.")
            }
            return .prefix(field: try field(), prefix: prefix)
        case "range":
            let field = try field()
            func bound(_ limit: String, _ included: String) throws(KiiError) -> Bound? {
                guard let value = object[limit], !value.isNull else { return nil }
                return Bound(value: try scalar(value, limit), included: object[included]?.boolValue ?? true)
            }
            let lower = try bound("lowerLimit", "lowerIncluded")
            let upper = try bound("upperLimit", "upperIncluded")
            guard lower != nil || upper != nil else {
                throw invalid("A 'range' clause needs a 'lowerLimit' or an 'upperLimit'.")
            }
            return .range(field: field, lower: lower, upper: upper)
        case "in":
            guard let values = object["values"]?.arrayValue, !values.isEmpty, values.count <= maximumValues else {
                throw invalid("An 'in' clause needs 1 to \(maximumValues) 'values'.")
            }
            var checked: [JSONValue] = []
            for value in values { checked.append(try scalar(value, "values")) }
            return .among(field: try field(), values: checked)
        case "hasField":
            guard let name = object["fieldType"]?.stringValue, let fieldType = FieldType(rawValue: name) else {
                throw invalid("A 'hasField' clause needs a 'fieldType': STRING, INTEGER, DECIMAL or BOOLEAN.")
            }
            return .hasField(field: try field(), type: fieldType)
        case "not":
            guard let inner = object["clause"] else { throw invalid("A 'not' clause needs a 'clause'.") }
            return .not(try read(inner, depth: depth + 1, count: &count))
        case "and": return .and(try nested("clauses"))
        case "or": return .or(try nested("clauses"))
        case "contains":
            guard let value = object["value"]?.stringValue else {
                throw invalid("A 'contains' clause needs a 'value'.")
            }
            return .contains(field: try field(), value: value)
        default:
            throw invalid(
                "Unknown clause type '\(type)': all, eq, prefix, range, in, hasField, not, and, or, contains.")
        }
    }

    static func invalid(_ message: String) -> KiiError { KiiError.invalidInput(message, field: "clause") }
}

extension QueryClause {
    /// True when every match must be owned by one of `owners`: an owner clause naming one of
    /// them (`contains` on `userOwners`/`groupOwners`), an `and` with such a clause, or an `or`
    /// whose every branch is one. Kii requires this of a user's thing query.
    public func restricts(toOwners owners: Set<Owner>) -> Bool {
        switch self {
        case .contains("userOwners", let id): owners.contains(.user(UserID(id)))
        case .contains("groupOwners", let id): owners.contains(.group(GroupID(id)))
        case .and(let clauses): clauses.contains { $0.restricts(toOwners: owners) }
        case .or(let clauses): clauses.allSatisfy { $0.restricts(toOwners: owners) }
        default: false
        }
    }

    /// A short account of the query, as Kii's `queryDescription` gives one.
    public var summary: String {
        switch self {
        case .all: "all"
        case .eq(let field, _): "\(field) equals"
        case .prefix(let field, _): "\(field) starts with"
        case .range(let field, _, _): "\(field) in range"
        case .among(let field, let values): "\(field) in \(values.count) values"
        case .hasField(let field, let type): "has \(field) (\(type.rawValue))"
        case .not(let inner): "not (\(inner.summary))"
        case .and(let clauses): clauses.map { "(\($0.summary))" }.joined(separator: " and ")
        case .or(let clauses): clauses.map { "(\($0.summary))" }.joined(separator: " or ")
        case .contains(let field, _): "\(field) contains"
        }
    }
}
