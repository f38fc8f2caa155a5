import TopicGateCore
import TopicGateStore

/// Thing-IF onboarding: registers the thing if it is new (or checks its password if it is
/// not), makes the owner an owner, and hands back the thing's ID and a token for it.
struct OnboardingService: Sendable {
    let store: any Store
    let tokens: TokenIssuer
    let things: ThingService
    let installations: InstallationService

    func onboard(caller: Caller, request: OnboardingRequest) async throws -> JSONValue {
        if let owner = request.owner {
            try await things.requireActingAs(caller, owner)
            try await things.requireExists(caller, owner)
        }
        let thing: Thing
        switch request.target {
        case .thingID(let id):
            thing = try await things.find(caller: caller, reference: .id(id))
            try await things.checkPassword(request.thingPassword, of: thing, caller: caller)
        case .vendorThingID(let vendorThingID, let fields):
            if let existing = try await store.thing(appID: caller.appID, reference: .vendorThingID(vendorThingID)) {
                try await things.checkPassword(request.thingPassword, of: existing, caller: caller)
                thing = existing
            } else {
                // A new thing counts like a sign-up.
                try await things.admitSignup(caller)
                thing = try await things.insert(
                    appID: caller.appID, vendorThingID: vendorThingID, password: request.thingPassword, fields: fields)
            }
        }
        if thing.disabled {
            throw KiiError(.thingDisabled, "The thing is disabled.", context: ["thingID": .string(thing.id.rawValue)])
        }
        if let owner = request.owner {
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
}
