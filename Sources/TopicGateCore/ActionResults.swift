/// A thing's `actionResults`, validated, with the command state they lead to. Trait format
/// `[{"<alias>": [{"<action>": {"succeeded": bool, …}}]}]` and schema format
/// `[{"<action>": {"succeeded": bool, …}}]` are both read: every result object with a
/// `succeeded` member counts.
public struct ActionResults: JSONRequestBody, Hashable {
    public var results: [JSONValue]
    /// `DONE` when every reported action succeeded, `INCOMPLETE` otherwise.
    public var state: CommandState

    public init(body: [String: JSONValue]) throws(KiiError) {
        guard let results = body["actionResults"]?.arrayValue, !results.isEmpty else {
            throw KiiError.invalidInput("The body needs a non-empty 'actionResults' array.", field: "actionResults")
        }
        var outcomes: [Bool] = []
        for (index, result) in results.enumerated() {
            guard result.objectValue?.isEmpty == false else {
                throw KiiError.invalidInput("actionResults[\(index)] must be an object.", field: "actionResults")
            }
            Self.collect(result, into: &outcomes)
        }
        guard !outcomes.isEmpty else {
            throw KiiError.invalidInput(
                "Each action result needs 'succeeded' (true or false).", field: "actionResults")
        }
        self.results = results
        state = outcomes.allSatisfy { $0 } ? .done : .incomplete
    }

    /// True when the results are flat (`[{"<action>": {"succeeded": …}}]`), as the older C thing
    /// SDK reports even a trait command's.
    public var isFlat: Bool {
        results.allSatisfy { result in
            result.objectValue?.values.allSatisfy { $0.objectValue?["succeeded"] != nil } == true
        }
    }

    /// Flat results grouped by the alias each action was sent under (`aliasOfAction`), so that
    /// readers of a trait command find them where the SDKs look; an action the command did not
    /// name is refused.
    public func grouped(by aliasOfAction: [String: String]) throws(KiiError) -> ActionResults {
        var order: [String] = []
        var byAlias: [String: [JSONValue]] = [:]
        for result in results {
            for (name, outcome) in result.objectValue ?? [:] {
                guard let alias = aliasOfAction[name] else {
                    throw KiiError.invalidInput(
                        "The command has no action '\(name)' to report a result for.", field: "actionResults")
                }
                if byAlias[alias] == nil { order.append(alias) }
                byAlias[alias, default: []].append(.object([name: outcome]))
            }
        }
        var grouped = self
        grouped.results = order.map { .object([$0: .array(byAlias[$0] ?? [])]) }
        return grouped
    }

    /// Gathers the `succeeded` flags of every result object under `value`.
    static func collect(_ value: JSONValue, into outcomes: inout [Bool]) {
        switch value {
        case .object(let members):
            if let succeeded = members["succeeded"] {
                outcomes.append(succeeded.boolValue == true)
            } else {
                for member in members.values { collect(member, into: &outcomes) }
            }
        case .array(let elements):
            for element in elements { collect(element, into: &outcomes) }
        default:
            break
        }
    }

    /// The `actionResults` a thing reports for `actions`, in the same format (trait: per alias
    /// a list; schema: one member per action), each action marked by `succeeded(actionName)`.
    public static func answering(_ actions: [JSONValue], succeeded: (String) -> Bool) -> JSONValue {
        func result(_ name: String) -> JSONValue {
            succeeded(name)
                ? .object(["succeeded": .bool(true)])
                : .object(["succeeded": .bool(false), "errorMessage": .string("\(name) failed (emulated)")])
        }
        return .array(
            actions.map { action in
                var answered: [String: JSONValue] = [:]
                for (key, value) in action.objectValue ?? [:] {
                    if case .array(let list) = value {
                        // Trait format: key is an alias, each element one action.
                        answered[key] = .array(
                            list.compactMap { element in
                                element.objectValue?.keys.first.map { name in .object([name: result(name)]) }
                            })
                    } else {
                        answered[key] = result(key)
                    }
                }
                return .object(answered)
            })
    }
}
