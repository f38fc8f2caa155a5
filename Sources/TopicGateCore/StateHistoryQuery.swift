/// A trait state history query (`POST …/states/aliases/{alias}/query`,
/// `TraitStateQueryRequest+json`), as Kii's Thing-IF SDKs send it:
/// - ungrouped: `{"query":{"clause":c},"bestEffortLimit"?,"paginationKey"?,"firmwareVersion"?}`;
/// - grouped: `{"query":{"grouped":true,"clause":c,"aggregations"?:[a]},"firmwareVersion"?}`,
///   where `c` is `withinTimeRange` or an `and` of a clause and `withinTimeRange`.
/// Clauses are Kii's query clauses (`all`, `eq`, `not`, `range`, `and`, `or`, …) over the fields
/// of the alias's state; `withinTimeRange` (`lowerLimit`, `upperLimit`: ms) bounds when the states
/// were recorded. `firmwareVersion` is taken and not used: an alias is any the thing reported.
public struct StateHistoryQuery: Sendable, Hashable {
    /// What the states must satisfy, besides the time range.
    public var clause: QueryClause
    /// When they were recorded (inclusive); the whole history when not given (ungrouped only).
    public var from: UnixMillis
    public var to: UnixMillis
    public var grouped: Bool
    public var aggregation: StateAggregation?
    public var limit: Int
    public var after: StatePosition?

    public static let defaultLimit = 100
    public static let maximumLimit = 1000

    public init(body: [String: JSONValue]) throws(KiiError) {
        guard let query = body["query"]?.objectValue else {
            throw KiiError.invalidInput("A state query has a 'query' object.", field: "query")
        }
        grouped = query["grouped"]?.boolValue ?? false
        guard let clause = query["clause"] else {
            throw KiiError.invalidInput("A state query has a 'clause'.", field: "clause")
        }
        var range: (UnixMillis, UnixMillis)?
        var rest: [JSONValue] = []
        if clause.objectValue?["type"]?.stringValue == "and", let parts = clause.objectValue?["clauses"]?.arrayValue {
            for part in parts {
                if part.objectValue?["type"]?.stringValue == "withinTimeRange" {
                    guard range == nil else {
                        throw KiiError.invalidInput("A query has one 'withinTimeRange'.", field: "clause")
                    }
                    range = try Self.timeRange(part)
                } else {
                    rest.append(part)
                }
            }
        } else if clause.objectValue?["type"]?.stringValue == "withinTimeRange" {
            range = try Self.timeRange(clause)
        } else {
            rest = [clause]
        }
        switch rest.count {
        case 0: self.clause = .all
        case 1: self.clause = try QueryClause(json: rest[0])
        default: self.clause = try QueryClause(json: .object(["type": "and", "clauses": .array(rest)]))
        }
        if grouped && range == nil {
            throw KiiError.invalidInput("A grouped query has a 'withinTimeRange' clause.", field: "clause")
        }
        (from, to) = range ?? (UnixMillis(0), UnixMillis(.max))
        if let aggregations = query["aggregations"], !aggregations.isNull {
            guard grouped, let list = aggregations.arrayValue, list.count == 1 else {
                throw KiiError.invalidInput(
                    "A grouped query takes exactly one aggregation.", field: "aggregations")
            }
            aggregation = try StateAggregation(json: list[0])
        }
        switch body["bestEffortLimit"] {
        case nil, .null?: limit = Self.defaultLimit
        case let value?:
            guard let number = value.intValue, number > 0 else {
                throw KiiError.invalidInput("'bestEffortLimit' is a positive integer.", field: "bestEffortLimit")
            }
            limit = Int(min(number, Int64(Self.maximumLimit)))
        }
        switch body["paginationKey"] {
        case nil, .null?: after = nil
        case .string(let key)?: after = try StatePosition(key: key)
        default: throw KiiError.invalidInput("'paginationKey' is a string.", field: "paginationKey")
        }
    }

    static func timeRange(_ clause: JSONValue) throws(KiiError) -> (UnixMillis, UnixMillis) {
        guard let lower = clause.objectValue?["lowerLimit"]?.intValue,
            let upper = clause.objectValue?["upperLimit"]?.intValue, lower >= 0, lower <= upper
        else {
            throw KiiError.invalidInput(
                "'withinTimeRange' has a 'lowerLimit' and an 'upperLimit' (ms, lower ≤ upper).", field: "clause")
        }
        return (UnixMillis(lower), UnixMillis(upper))
    }

    /// The time a grouped query covers, widened to whole intervals; `INVALID_INPUT_DATA` past
    /// `DataGroupingInterval.maximumGroups` intervals.
    public func groupedRange(_ interval: DataGroupingInterval) throws(KiiError) -> (from: UnixMillis, to: UnixMillis) {
        let start = interval.start(of: from)
        let end = interval.start(of: to) + .milliseconds(interval.milliseconds - 1)
        let groups = (end.rawValue - start.rawValue + 1) / interval.milliseconds
        guard groups <= DataGroupingInterval.maximumGroups else {
            throw KiiError.invalidInput(
                "A grouped query covers at most \(DataGroupingInterval.maximumGroups) intervals of "
                    + "\(interval.rawValue); this one covers \(groups).", field: "clause")
        }
        return (start, end)
    }

    /// A state as a query answers it: the alias's state and `_created`.
    public static func listed(_ record: ThingStateRecord) -> [String: JSONValue] {
        var state = record.state
        state["_created"] = record.recordedAt.json
        return state
    }

    /// The grouped answer over `records` (in time order, all within the grouped range and
    /// matching): `{"groupedResults":[{"range":{"from","to"},"objects"|"aggregations"}]}`, one
    /// group per interval that holds a state.
    public func groupedAnswer(_ records: [ThingStateRecord], interval: DataGroupingInterval) -> JSONValue {
        var groups: [(start: UnixMillis, states: [[String: JSONValue]])] = []
        for record in records {
            let start = interval.start(of: record.recordedAt)
            if groups.last?.start != start { groups.append((start, [])) }
            groups[groups.count - 1].states.append(Self.listed(record))
        }
        return [
            "groupedResults": .array(
                groups.map { group in
                    var members: [String: JSONValue] = [
                        "range": [
                            "from": group.start.json,
                            "to": (group.start + .milliseconds(interval.milliseconds - 1)).json,
                        ]
                    ]
                    if let aggregation {
                        members["aggregations"] = [aggregation.result(over: group.states)]
                    } else {
                        members["objects"] = .array(group.states.map { .object($0) })
                    }
                    return .object(members)
                })
        ]
    }
}
