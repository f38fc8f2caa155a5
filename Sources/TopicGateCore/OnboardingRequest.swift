/// The body of `POST /thing-if/apps/{appID}/onboardings` in one of its four variants (chosen
/// by the media type): the thing's password, the owner (except when the thing onboards
/// itself), and the thing by ID or by vendor thing ID with the fields a new one gets.
public struct OnboardingRequest: Sendable, Hashable {
    public enum Variant: Sendable, Hashable {
        case vendorThingIDByOwner
        case thingIDByOwner
        case vendorThingIDByThing
        /// The older C thing SDK's: an existing thing by its ID, with no owner.
        case thingIDByThing
    }

    public enum Target: Sendable, Hashable {
        case thingID(ThingID)
        /// A thing found by its vendor thing ID, or registered with `fields` when new.
        case vendorThingID(String, fields: ThingFields)
    }

    public var thingPassword: String
    public var owner: Owner?
    public var target: Target

    public init(_ variant: Variant, body: [String: JSONValue]) throws(KiiError) {
        thingPassword = try Self.string(body, "thingPassword")
        if variant == .vendorThingIDByOwner || variant == .thingIDByOwner {
            guard let typed = body["owner"]?.stringValue, let parsed = Owner(parsing: typed) else {
                throw KiiError.invalidInput("'owner' must be 'user:ID' or 'group:ID'.", field: "owner")
            }
            owner = parsed
        }
        switch variant {
        case .thingIDByOwner, .thingIDByThing:
            target = .thingID(ThingID(try Self.string(body, "thingID")))
        case .vendorThingIDByOwner, .vendorThingIDByThing:
            target = .vendorThingID(try Self.string(body, "vendorThingID"), fields: try Self.fields(body))
        }
    }

    /// Thing-IF's `thingType`, `firmwareVersion`, `layoutPosition`, `dataGroupingInterval` and
    /// `thingProperties`, as the Cloud API's thing fields.
    static func fields(_ body: [String: JSONValue]) throws(KiiError) -> ThingFields {
        var fields = ThingFields()
        if let properties = body["thingProperties"], !properties.isNull {
            guard let object = properties.objectValue else {
                throw KiiError.invalidInput("'thingProperties' must be an object.", field: "thingProperties")
            }
            fields = try ThingFields(body: object)
        }
        for (key, field) in [
            ("thingType", "_thingType"), ("firmwareVersion", "_firmwareVersion"), ("layoutPosition", "_layoutPosition"),
            ("dataGroupingInterval", "_dataGroupingInterval"),
        ] {
            if let value = body[key], !value.isNull {
                guard let text = value.stringValue else {
                    throw KiiError.invalidInput("'\(key)' must be a string.", field: key)
                }
                try fields.set(field, text)
            }
        }
        return fields
    }

    static func string(_ body: [String: JSONValue], _ key: String) throws(KiiError) -> String {
        guard let text = body[key]?.stringValue, !text.isEmpty else {
            throw KiiError.invalidInput("'\(key)' is required and must be a string.", field: key)
        }
        return text
    }
}
