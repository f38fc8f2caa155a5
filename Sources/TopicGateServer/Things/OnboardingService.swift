import TopicGateCore
import TopicGateStore

/// Thing-IF onboarding: registers the thing if it is new (or checks its password if it is
/// not), makes the owner an owner, and hands back the thing's ID and a token for it. An end
/// node onboards through its gateway: it is attached to the gateway and gets no MQTT endpoint
/// of its own (its commands reach the gateway's).
struct OnboardingService: Sendable {
    let store: any EndNodeStore & ThingStore
    let tokens: TokenIssuer
    let things: ThingService
    let installations: InstallationService
    let gateways: GatewayService

    func onboard(caller: Caller, request: OnboardingRequest) async throws -> OnboardingAnswer {
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
            thing = try await findOrRegister(
                caller: caller, vendorThingID: vendorThingID, password: request.thingPassword, fields: fields)
        }
        if thing.disabled { throw KiiError.thingDisabled(thing.id) }
        if let owner = request.owner {
            _ = try await store.addOwner(appID: caller.appID, thing: thing.id, owner: owner)
        }
        let token = try await tokens.issue(appID: caller.appID, principal: .thing(thing.id))
        // With push, the thing also gets its MQTT endpoint, on an installation of this
        // onboarding's own (revoked with its token).
        var endpoint: MQTTEndpoint?
        if installations.push != nil {
            endpoint = try await installations.onboardingEndpoint(appID: caller.appID, thing: thing.id, token: token)
        }
        return OnboardingAnswer(thingID: thing.id.rawValue, accessToken: token, mqttEndpoint: endpoint)
    }

    /// `OnboardingEndNodeWithGateway…`: by the gateway, one who manages it, or, for a gateway
    /// that has no owner yet (onboarded with the app's key, as kii_go's gateways are), the end
    /// node's owner-to-be; the end node's password is the proof. Its owner is `owner` (which the
    /// caller must act as), or every owner of the gateway.
    func onboardEndNode(caller: Caller, request: EndNodeOnboardingRequest) async throws -> EndNodeOnboardingAnswer {
        let gateway = try await gateways.gateway(caller: caller, request.gateway)
        let ownerless = try await things.owners(of: gateway).isEmpty
        if request.owner == nil || !ownerless {
            try await things.requireManager(caller, gateway, to: "onboard end nodes through this gateway")
        }
        let owners: Set<Owner>
        if let owner = request.owner {
            try await things.requireActingAs(caller, owner)
            try await things.requireExists(caller, owner)
            owners = [owner]
        } else {
            owners = try await things.owners(of: gateway)
        }
        let endNode = try await findOrRegister(
            caller: caller, vendorThingID: request.vendorThingID, password: request.password, fields: request.fields)
        guard endNode.id != gateway.id else {
            throw KiiError.invalidInput("A gateway cannot be its own end node.", field: "endNodeVendorThingID")
        }
        if endNode.disabled { throw KiiError.thingDisabled(endNode.id) }
        for owner in owners { _ = try await store.addOwner(appID: caller.appID, thing: endNode.id, owner: owner) }
        _ = try await store.attachEndNode(
            appID: caller.appID, gateway: gateway.id, endNode: endNode.id, at: gateways.time.now())
        let token = try await tokens.issue(appID: caller.appID, principal: .thing(endNode.id))
        return EndNodeOnboardingAnswer(endNodeThingID: endNode.id.rawValue, accessToken: token)
    }

    /// The thing with `vendorThingID` when `password` is its password, or a new one.
    private func findOrRegister(caller: Caller, vendorThingID: String, password: String, fields: ThingFields)
        async throws -> Thing
    {
        if let existing = try await store.thing(appID: caller.appID, reference: .vendorThingID(vendorThingID)) {
            try await things.checkPassword(password, of: existing, caller: caller)
            return existing
        }
        // A new thing counts like a sign-up.
        try await things.accounts.admitSignup(caller)
        return try await things.insert(
            appID: caller.appID, vendorThingID: vendorThingID, password: password, fields: fields)
    }
}
