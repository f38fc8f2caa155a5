/// A command creation body, validated. Both wire formats are accepted:
/// - trait (`CommandCreationRequest+json`): `actions: [{"<alias>": [{"<action>": value}, …]}, …]`;
/// - schema (`application/json`): `schema`, `schemaVersion`, `actions: [{"<action>": value}, …]`.
/// Plus `issuer` (`user:ID`/`group:ID`), optional `title` (≤ 50 characters), `description`,
/// `metadata` (an object) and `firedByTriggerID`.
public struct CommandRequest: JSONRequestBody, Hashable {
    public var issuer: Owner
    public var actions: [JSONValue]
    /// The optional members kept as given: title, description, metadata, schema,
    /// schemaVersion, firedByTriggerID.
    public var extras: [String: JSONValue]

    public static let maximumActions = 100

    public init(body: [String: JSONValue]) throws(KiiError) {
        guard let issuerText = body["issuer"]?.stringValue else {
            throw KiiError.invalidInput("A command needs an 'issuer' (user:ID or group:ID).", field: "issuer")
        }
        guard let issuer = Owner(parsing: issuerText) else {
            throw KiiError.invalidInput("'issuer' must be user:ID or group:ID, not '\(issuerText)'.", field: "issuer")
        }
        self.issuer = issuer
        guard let actions = body["actions"]?.arrayValue, !actions.isEmpty else {
            throw KiiError.invalidInput("A command needs a non-empty 'actions' array.", field: "actions")
        }
        guard actions.count <= Self.maximumActions else {
            throw KiiError.invalidInput("A command has at most \(Self.maximumActions) actions.", field: "actions")
        }
        for (index, action) in actions.enumerated() {
            guard let object = action.objectValue, !object.isEmpty else {
                throw KiiError.invalidInput(
                    "actions[\(index)] must be an object naming an action (or a trait alias).", field: "actions")
            }
        }
        // Either every entry groups actions under an alias, or none does.
        let grouped = actions.map(Self.isAliasGroup)
        if grouped.contains(true) && grouped.contains(false) {
            throw KiiError.invalidInput(
                "A command's actions are all grouped by trait alias ([{\"alias\":[{\"action\":value}]}]) or none "
                    + "is; actions[\(grouped.firstIndex(of: false) ?? 0)] is not.", field: "actions")
        }
        self.actions = actions
        var extras: [String: JSONValue] = [:]
        if let title = body["title"], !title.isNull {
            guard let text = title.stringValue, text.count <= 50 else {
                throw KiiError.invalidInput("'title' must be a string of at most 50 characters.", field: "title")
            }
            extras["title"] = title
        }
        for key in ["description", "schema", "firedByTriggerID"] {
            guard let value = body[key], !value.isNull else { continue }
            guard let text = value.stringValue, text.count <= 1000 else {
                throw KiiError.invalidInput("'\(key)' must be a string of at most 1000 characters.", field: key)
            }
            extras[key] = value
        }
        if let metadata = body["metadata"], !metadata.isNull {
            guard metadata.objectValue != nil else {
                throw KiiError.invalidInput("'metadata' must be an object.", field: "metadata")
            }
            extras["metadata"] = metadata
        }
        if let version = body["schemaVersion"], !version.isNull {
            guard version.intValue != nil else {
                throw KiiError.invalidInput("'schemaVersion' must be an integer.", field: "schemaVersion")
            }
            extras["schemaVersion"] = version
        }
        self.extras = extras
    }

    /// True when the actions are grouped by trait alias (Thing-IF v2's form).
    public var isTraitForm: Bool { actions.allSatisfy(Self.isAliasGroup) }

    /// `{"<alias>": [{"<action>": value}, …]}`: one member, a non-empty list of one-member objects.
    static func isAliasGroup(_ action: JSONValue) -> Bool {
        guard let object = action.objectValue, object.count == 1, case .array(let list)? = object.values.first,
            !list.isEmpty
        else { return false }
        return list.allSatisfy { $0.objectValue?.count == 1 }
    }

    /// The alias each action name is grouped under (the first, when an action is under several).
    public var aliasOfAction: [String: String] {
        var aliases: [String: String] = [:]
        for action in actions {
            guard let (alias, list) = action.objectValue?.first, let list = list.arrayValue else { continue }
            for entry in list {
                if let name = entry.objectValue?.keys.first, aliases[name] == nil { aliases[name] = alias }
            }
        }
        return aliases
    }

    /// `actions` and the extras, as JSON members.
    public var members: [String: JSONValue] {
        var members = extras
        members["actions"] = .array(actions)
        return members
    }
}
