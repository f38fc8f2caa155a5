/// The descriptive fields of a thing: Kii's predefined `_thingType`, `_vendor`,
/// `_firmwareVersion`, `_layoutPosition`, `_stringField1…5`, `_numberField1…5`, … and the
/// app's custom fields, keyed as they travel on the wire.
public struct ThingFields: JSONRequestBody, Hashable {
    public private(set) var values: [String: JSONValue]

    static let stringKeys: Set<String> = [
        "_thingType", "_vendor", "_firmwareVersion", "_productName", "_lot", "_layoutPosition", "_dataGroupingInterval",
        "_stringField1", "_stringField2", "_stringField3", "_stringField4", "_stringField5",
    ]
    static let numberKeys: Set<String> = [
        "_numberField1", "_numberField2", "_numberField3", "_numberField4", "_numberField5",
    ]
    /// Kii's layout positions; Thing-IF's `ENDNODE` is read as `END_NODE`.
    static let layoutPositions: Set<String> = ["END_NODE", "STANDALONE", "GATEWAY"]

    public init() { values = [:] }

    /// Reads the fields of a registration or update body. Unknown `_` keys (including the
    /// read-only `_thingID`, `_created`, … and the credentials) are ignored; other keys are
    /// custom fields.
    public init(body: [String: JSONValue]) throws(KiiError) {
        values = [:]
        for (key, value) in body {
            if Self.stringKeys.contains(key) {
                guard let text = value.stringValue else {
                    throw KiiError.invalidInput("The field '\(key)' must be a string.", field: key)
                }
                try set(key, text)
            } else if Self.numberKeys.contains(key) {
                switch value {
                case .int, .double: values[key] = value
                default: throw KiiError.invalidInput("The field '\(key)' must be a number.", field: key)
                }
            } else if !key.hasPrefix("_") {
                values[key] = value
            }
        }
    }

    /// Sets one predefined string field, validating the layout position.
    public mutating func set(_ key: String, _ text: String) throws(KiiError) {
        if key == "_layoutPosition" {
            let position = text.uppercased() == "ENDNODE" ? "END_NODE" : text.uppercased()
            guard Self.layoutPositions.contains(position) else {
                throw KiiError.invalidInput(
                    "The layout position is END_NODE, STANDALONE or GATEWAY.", field: "_layoutPosition")
            }
            values[key] = .string(position)
        } else if key == "_dataGroupingInterval" {
            guard let interval = DataGroupingInterval(rawValue: text.uppercased()) else {
                throw KiiError.invalidInput(
                    "The data grouping interval is one of "
                        + DataGroupingInterval.allCases.map(\.rawValue).joined(separator: ", ") + ".",
                    field: "dataGroupingInterval")
            }
            values[key] = .string(interval.rawValue)
        } else {
            guard text.count <= 256 else {
                throw KiiError.invalidInput("The field '\(key)' is at most 256 characters.", field: key)
            }
            values[key] = .string(text)
        }
    }

    /// These fields with `update`'s laid over them.
    public func merging(_ update: ThingFields) -> ThingFields {
        var merged = self
        merged.values.merge(update.values) { _, new in new }
        return merged
    }

    public var thingType: String? { values["_thingType"]?.stringValue }
    public var firmwareVersion: String? { values["_firmwareVersion"]?.stringValue }
    /// How the thing's state history is grouped (onboarding's `dataGroupingInterval`).
    public var dataGroupingInterval: DataGroupingInterval? {
        values["_dataGroupingInterval"]?.stringValue.flatMap { DataGroupingInterval(rawValue: $0) }
    }
    /// `GATEWAY`, `END_NODE`, `STANDALONE`, or nil when not set.
    public var layoutPosition: String? { values["_layoutPosition"]?.stringValue }
}
