import TopicGateCore
import TopicGateStore

/// Thing-IF gateways and the end nodes they relay for: a gateway is a thing whose layout
/// position is `GATEWAY`; an end node is attached to at most one gateway, which receives the end
/// node's commands on its own MQTT topic and reports the end node's connection.
///
/// Who may do what: the gateway itself and the gateway's managers (its owners, the admin) list
/// its end nodes, remove one and report an end node's connection. Authority over an end node
/// comes from proof, never from sharing an owner with the gateway: attaching gives nobody access
/// to a thing they did not have (`requireMayAttach`). A token minted for an end node
/// (`POST …/end-nodes/{id}/token`, by the gateway itself, the admin or the end node's managers)
/// acts for its Thing-IF traffic only, never for its owners, password, vendor thing ID or
/// deletion (`AccessToken.relay`), and ends when the end node leaves the gateway.
struct GatewayService: Sendable {
    let store: any EndNodeStore
    let things: ThingService
    let tokens: TokenIssuer
    let time: TimeSource

    static let pageLimit = 100

    /// The thing `reference` names, which must be a gateway.
    func gateway(caller: Caller, _ reference: ThingReference) async throws -> Thing {
        let thing = try await things.find(caller: caller, reference: reference)
        guard thing.fields.layoutPosition == "GATEWAY" else {
            throw KiiError.invalidInput(
                "Thing \(thing.id.rawValue) is not a gateway (its layout position is "
                    + "\(thing.fields.layoutPosition ?? "not set")).", field: "gatewayThingID")
        }
        return thing
    }

    /// The gateway, when the caller is it or manages it.
    func managedGateway(caller: Caller, _ reference: ThingReference, to what: String) async throws -> Thing {
        let gateway = try await gateway(caller: caller, reference)
        try await things.requireManager(caller, gateway, to: what)
        return gateway
    }

    /// `PUT …/things/{gateway}/end-nodes/{endNode}`.
    func add(caller: Caller, gateway reference: ThingReference, endNode endNodeReference: ThingReference) async throws {
        let gateway = try await managedGateway(caller: caller, reference, to: "add end nodes to this gateway")
        let endNode = try await things.find(caller: caller, reference: endNodeReference)
        guard endNode.id != gateway.id else {
            throw KiiError.invalidInput("A gateway cannot be its own end node.", field: "endNodeThingID")
        }
        try await requireMayAttach(caller: caller, gateway: gateway, endNode: endNode)
        _ = try await store.attachEndNode(
            appID: caller.appID, gateway: gateway.id, endNode: endNode.id, at: time.now())
    }

    /// Attaching hands the end node's commands to the gateway and lets the gateway mint tokens for
    /// its Thing-IF traffic, so it must give nobody a thing they did not have. It may be done by:
    /// - the admin;
    /// - a manager of the end node (its owner) who manages the gateway too (`add` asks that
    ///   first), giving its own thing;
    /// - the gateway itself (its own token, not one it minted), when the end node has no owner
    ///   yet (Kii's sequence: a thing registered with the app's key, then attached by its
    ///   gateway), or when every owner of the gateway already owns the end node and the gateway
    ///   has one (no one who controls the gateway gains the end node); never one that another
    ///   gateway has, whose relay tokens the move would end.
    /// A user who co-owns a gateway with another never attaches that other's thing.
    func requireMayAttach(caller: Caller, gateway: Thing, endNode: Thing) async throws {
        if caller.principal == .admin { return }
        let endNodeOwners = try await things.owners(of: endNode)
        if caller.principal == .thing(gateway.id), caller.relay == nil {
            let gatewayOwners = try await things.owners(of: gateway)
            guard endNodeOwners.isEmpty || !gatewayOwners.isEmpty && gatewayOwners.isSubset(of: endNodeOwners) else {
                throw caller.denied(
                    "attach a thing that has owners of its own: only its owners may, or the gateway when all its "
                        + "owners own that thing")
            }
            if let holder = try await store.endNode(appID: caller.appID, id: endNode.id)?.gateway, holder != gateway.id
            {
                throw caller.denied(
                    "attach a thing that another gateway has: it leaves that gateway first (by that gateway, its "
                        + "managers or the admin)")
            }
            return
        }
        try await things.requireController(caller, endNode, to: "attach a thing it does not own to a gateway")
    }

    /// `DELETE …/things/{gateway}/end-nodes/{endNode}`: the end node's commands no longer go to
    /// this gateway.
    func remove(caller: Caller, gateway reference: ThingReference, endNode endNodeReference: ThingReference)
        async throws
    {
        let gateway = try await managedGateway(caller: caller, reference, to: "remove end nodes of this gateway")
        let endNode = try await things.find(caller: caller, reference: endNodeReference)
        guard try await store.detachEndNode(appID: caller.appID, gateway: gateway.id, endNode: endNode.id) else {
            throw Self.notAttached(endNode.id, to: gateway.id)
        }
    }

    /// A page of the gateway's end nodes.
    func list(caller: Caller, gateway reference: ThingReference, limit: Int?, after key: String?) async throws
        -> (endNodes: [EndNode], next: String?)
    {
        let gateway = try await managedGateway(caller: caller, reference, to: "list this gateway's end nodes")
        let limit = min(max(limit ?? Self.pageLimit, 1), Self.pageLimit)
        return try await store.endNodes(appID: caller.appID, gateway: gateway.id, limit: limit, after: key)
    }

    /// `POST …/things/{gateway}/end-nodes/{endNode}/token`: a token that acts as the end node,
    /// for a gateway that reports for it. `expiresIn`: nil for no expiry.
    func token(
        caller: Caller, gateway reference: ThingReference, endNode endNodeReference: ThingReference,
        expiresIn: Duration?
    ) async throws -> TokenGrant {
        let gateway = try await gateway(caller: caller, reference)
        let endNode = try await attachedEndNode(caller: caller, gateway: gateway, endNodeReference)
        // The gateway itself, the admin, or who manages the end node: never a co-owner of the
        // gateway as such, nor a token minted here.
        if caller.principal != .thing(gateway.id) || caller.relay != nil {
            try await things.requireController(caller, endNode, to: "issue tokens for this end node")
        }
        if endNode.disabled { throw KiiError.thingDisabled(endNode.id) }
        let expiresAt = expiresIn.map { time.now() + $0 }
        let token = try await tokens.issue(
            appID: caller.appID, principal: .thing(endNode.id), expiresAt: expiresAt, relay: gateway.id)
        return tokens.grant(id: endNode.id.rawValue, token: token, expiresAt: expiresAt)
    }

    /// `PUT …/things/{gateway}/end-nodes/{endNode}/connection`. A gateway that reports a thing
    /// it may attach (`requireMayAttach`) but has not attached attaches it.
    func reportConnection(
        caller: Caller, gateway reference: ThingReference, endNode endNodeReference: ThingReference, online: Bool
    ) async throws {
        let gateway = try await managedGateway(caller: caller, reference, to: "report this gateway's end nodes")
        let endNode = try await things.find(caller: caller, reference: endNodeReference)
        if caller.principal == .thing(gateway.id), endNode.id != gateway.id,
            try await store.endNode(appID: caller.appID, id: endNode.id)?.gateway != gateway.id
        {
            try await requireMayAttach(caller: caller, gateway: gateway, endNode: endNode)
            _ = try await store.attachEndNode(
                appID: caller.appID, gateway: gateway.id, endNode: endNode.id, at: time.now())
        }
        guard
            try await store.setEndNodeConnection(
                appID: caller.appID, gateway: gateway.id, endNode: endNode.id, online: online, at: time.now())
        else { throw Self.notAttached(endNode.id, to: gateway.id) }
    }

    /// The end node `reference` names, attached to `gateway`.
    func attachedEndNode(caller: Caller, gateway: Thing, _ reference: ThingReference) async throws -> Thing {
        let endNode = try await things.find(caller: caller, reference: reference)
        guard try await store.endNode(appID: caller.appID, id: endNode.id)?.gateway == gateway.id else {
            throw Self.notAttached(endNode.id, to: gateway.id)
        }
        return endNode
    }

    /// The gateway that relays for `thing`, when it is an end node.
    func gateway(of thing: ThingID, appID: AppID) async throws -> ThingID? {
        try await store.endNode(appID: appID, id: thing)?.gateway
    }

    /// True when `caller` is the thing itself or, for an end node, its gateway (which reports
    /// for it).
    func speaksFor(_ caller: Caller, thing: ThingID) async throws -> Bool {
        if caller.principal == .thing(thing) { return true }
        guard case .thing(let relay) = caller.principal else { return false }
        return try await gateway(of: thing, appID: caller.appID) == relay
    }

    static func notAttached(_ endNode: ThingID, to gateway: ThingID) -> KiiError {
        KiiError(
            .endNodeNotFound, "Thing \(endNode.rawValue) is not an end node of gateway \(gateway.rawValue).",
            context: ["endNodeThingID": .string(endNode.rawValue), "gatewayThingID": .string(gateway.rawValue)])
    }
}
