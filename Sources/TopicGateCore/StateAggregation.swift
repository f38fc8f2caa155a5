/// One aggregation of a grouped state history query (`query.aggregations`, exactly one):
/// `{"type":"COUNT|SUM|MAX|MIN|MEAN","field","fieldType","putAggregationInto"}`. COUNT counts the
/// states whose field is set (not null); SUM, MAX, MIN and MEAN take numbers (`fieldType` INTEGER
/// or DECIMAL); MAX and MIN also name the state that holds the value (`object`).
public struct StateAggregation: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case count = "COUNT"
        case sum = "SUM"
        case max = "MAX"
        case min = "MIN"
        case mean = "MEAN"
    }

    public var kind: Kind
    public var field: String
    /// The name the result carries (`putAggregationInto`; the type in lower case when absent).
    public var name: String

    public init(kind: Kind, field: String, name: String) {
        self.kind = kind
        self.field = field
        self.name = name
    }

    /// Reads one from the request; `INVALID_INPUT_DATA` naming what is wrong.
    public init(json: JSONValue) throws(KiiError) {
        guard let object = json.objectValue, let type = object["type"]?.stringValue,
            let kind = Kind(rawValue: type.uppercased())
        else {
            throw KiiError.invalidInput(
                "An aggregation has a 'type': COUNT, SUM, MAX, MIN or MEAN.", field: "aggregations")
        }
        guard let field = object["field"]?.stringValue, !field.isEmpty else {
            throw KiiError.invalidInput("An aggregation names its 'field'.", field: "aggregations")
        }
        if kind != .count, let fieldType = object["fieldType"]?.stringValue,
            !["INTEGER", "DECIMAL"].contains(fieldType.uppercased())
        {
            throw KiiError.invalidInput(
                "\(kind.rawValue) takes a field of type INTEGER or DECIMAL, not \(fieldType).", field: "fieldType")
        }
        self.init(
            kind: kind, field: field, name: object["putAggregationInto"]?.stringValue ?? kind.rawValue.lowercased())
    }

    /// The result over `states` (each with its `_created`): `{"name","value","object"?}`. A value
    /// that is a whole number is written as an integer.
    public func result(over states: [[String: JSONValue]]) -> JSONValue {
        var members: [String: JSONValue] = ["name": .string(name)]
        let present = states.filter { !($0[field]?.isNull ?? true) }
        let numbers = present.compactMap { state in state[field]?.doubleValue.map { (state, $0) } }
        switch kind {
        case .count:
            members["value"] = .int(Int64(present.count))
        case .sum:
            members["value"] = Self.number(numbers.reduce(0) { $0 + $1.1 })
        case .mean:
            members["value"] =
                numbers.isEmpty ? .null : Self.number(numbers.reduce(0) { $0 + $1.1 } / Double(numbers.count))
        case .max, .min:
            let pick = kind == .max ? numbers.max { $0.1 < $1.1 } : numbers.min { $0.1 < $1.1 }
            if let (state, _) = pick {
                members["value"] = state[field]
                members["object"] = .object(state)
            } else {
                members["value"] = .null
            }
        }
        return .object(members)
    }

    static func number(_ value: Double) -> JSONValue {
        value.rounded() == value && abs(value) < 9.0e15 ? .int(Int64(value)) : .double(value)
    }
}
