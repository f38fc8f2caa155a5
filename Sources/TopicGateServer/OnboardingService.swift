import TopicGateCore
import TopicGateStore

/// Thing-IF onboarding: registers the thing if it is new (or checks its password if it is
/// not), makes the owner an owner, and hands back the thing's ID and a token for it.
struct OnboardingService: Sendable {
    /// The variants, chosen by the request's media type.
    enum Variant {
        case vendorThingIDByOwner
        case thingIDByOwner
        case vendorThingIDByThing
    }

    let store: any Store
    let tokens: TokenIssuer
    let things: ThingService
    let installations: InstallationService
    let abuse: AbuseGuard

    func onboard(caller: Caller, variant: Variant, body: [String: JSONValue]) async throws -> JSONValue {
        let password = try Self.string(body, "thingPassword")
        var owner: Owner?
        if variant != .vendorThingIDByThing {
            guard let typed = body["owner"]?.stringValue, let parsed = Owner(parsing: typed) else {
                throw KiiError.invalidInput("'owner' must be 'user:ID' or 'group:ID'.", field: "owner")
            }
            try await things.requireActingAs(caller, parsed)
            try await things.requireExists(caller, parsed)
            owner = parsed
        }
        let thing: Thing
        switch variant {
        case .thingIDByOwner:
            let id = try Self.string(body, "thingID")
            thing = try await things.find(caller: caller, reference: .id(ThingID(id)))
            try await things.checkPassword(password, of: thing, caller: caller)
        case .vendorThingIDByOwner, .vendorThingIDByThing:
            let vendorThingID = try Self.string(body, "vendorThingID")
            if let existing = try await store.thing(appID: caller.appID, reference: .vendorThingID(vendorThingID)) {
                try await things.checkPassword(password, of: existing, caller: caller)
                thing = existing
            } else {
                // A new thing counts like a sign-up.
                if caller.principal != .admin { try abuse.admitSignup(appID: caller.appID, address: caller.address) }
                thing = try await things.insert(
                    appID: caller.appID, vendorThingID: vendorThingID, password: password, fields: try Self.fields(body))
            }
        }
        if thing.disabled {
            throw KiiError(.thingDisabled, "The thing is disabled.", context: ["thingID": .string(thing.id.rawValue)])
        }
        if let owner {
            _ = try await store.addOwner(appID: caller.appID, thing: thing.id, owner: owner)
        }
        let token = try await tokens.issue(appID: caller.appID, principal: .thing(thing.id))
        var response: [String: JSONValue] = ["thingID": .string(thing.id.rawValue), "accessToken": .string(token)]
        // With push, the thing also gets its MQTT endpoint, on an installation of this
        // onboarding's own (revoked with its token).
        if installations.push != nil {
            let installation = try await installations.onboardingInstallation(
                appID: caller.appID, thing: thing.id, token: token)
            response["mqttEndpoint"] = try await installations.endpoint(for: installation).json
        }
        return .object(response)
    }

    /// Thing-IF's `thingType`, `firmwareVersion`, `layoutPosition` and `thingProperties`, as the
    /// Cloud API's thing fields.
    static func fields(_ body: [String: JSONValue]) throws(KiiError) -> ThingFields {
        var fields = ThingFields()
        if let properties = body["thingProperties"], !properties.isNull {
            guard let object = properties.objectValue else {
                throw KiiError.invalidInput("'thingProperties' must be an object.", field: "thingProperties")
            }
            fields = try ThingFields(body: object)
        }
        for (key, field) in [("thingType", "_thingType"), ("firmwareVersion", "_firmwareVersion"), ("layoutPosition", "_layoutPosition")] {
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
