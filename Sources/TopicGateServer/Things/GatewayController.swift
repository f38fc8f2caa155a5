import Hummingbird
import TopicGateCore

/// Thing-IF gateways and end nodes, under both roots as Kii's SDKs call them:
/// `/api/apps/{appID}/things/{gateway}/end-nodes…` (add, remove, token, list) and
/// `/thing-if/apps/{appID}/things/{gateway}/end-nodes…` (list, connection).
struct GatewayController<Context: CallerRequestContext>: RouteTable {
    let gateways: GatewayService
    let body: RequestBody

    static var tag: String { "Gateways" }

    static var routes: [APIRoute<Self>] {
        let endNode = "things/{thing}/end-nodes/{endNode}"
        let lists: [APIRoute<Self>] = [APIRoot.app, .thingIF].map { root in
            .get(
                "things/{thing}/end-nodes", "A gateway's end nodes (the gateway, its owners or the admin)", on: root,
                query: APISchema.bestEffortPaging, Self.list)
        }
        return lists + [
            .put(
                endNode,
                "Attach a thing to a gateway as its end node (the admin, an owner of both, or the gateway "
                    + "when they share an owner)", Self.attach),
            .delete(endNode, "Detach an end node from its gateway", Self.detach),
            .post(
                endNode + "/token", "A token that acts as the end node, for its gateway",
                body: APIOperation.Body(
                    mediaTypes: ["application/json"],
                    schema: APISchema.object(["expires_in": ["type": ["string", "integer"]]]), required: false),
                Self.token),
            .put(
                endNode + "/connection", "Report an end node online or offline", on: .thingIF,
                body: APISchema.json(APISchema.object(["online": APISchema.boolean], required: ["online"])),
                Self.reportConnection),
        ]
    }

    func attach(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, gateway, endNode) = try references(context)
        try await gateways.add(caller: caller, gateway: gateway, endNode: endNode)
        return JSONResponse.noContent()
    }

    func detach(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, gateway, endNode) = try references(context)
        try await gateways.remove(caller: caller, gateway: gateway, endNode: endNode)
        return JSONResponse.noContent()
    }

    func token(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, gateway, endNode) = try references(context)
        let expiresIn = try Self.expiresIn(try await body.object(request, emptyAllowed: true))
        return try JSONResponse.ok(
            encoding: try await gateways.token(caller: caller, gateway: gateway, endNode: endNode, expiresIn: expiresIn)
        )
    }

    func reportConnection(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, gateway, endNode) = try references(context)
        let report = try await body.object(request)
        guard case .bool(let online)? = report["online"] else {
            throw KiiError.invalidInput("'online' is required and must be true or false.", field: "online")
        }
        try await gateways.reportConnection(caller: caller, gateway: gateway, endNode: endNode, online: online)
        return JSONResponse.noContent()
    }

    func list(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let query = request.uri.queryParameters
        let limit = try ThingIFController<Context>.nonNegative(query.get("bestEffortLimit"), "bestEffortLimit")
        let page = try await gateways.list(
            caller: caller, gateway: try context.parameters.thingReference(appID: caller.appID),
            limit: limit.map { Int(clamping: $0) }, after: query.get("paginationKey"))
        return try JSONResponse.ok(encoding: ListingPage("results", page.endNodes, next: page.next))
    }

    private func references(_ context: Context) throws -> (Caller, ThingReference, ThingReference) {
        let caller = try context.caller
        return (
            caller, try context.parameters.thingReference(appID: caller.appID),
            try context.parameters.thingReference(appID: caller.appID, "endNode")
        )
    }

    /// `expires_in` in seconds, as a number or a string (kii_go sends a string, `""` for none).
    static func expiresIn(_ body: [String: JSONValue]) throws -> Duration? {
        switch body["expires_in"] {
        case nil, .null?: return nil
        case .string(let text)? where text.isEmpty: return nil
        case .string(let text)?:
            guard let seconds = Int64(text), seconds > 0 else { throw badExpiry }
            return .seconds(seconds)
        case .int(let seconds)? where seconds > 0: return .seconds(seconds)
        default: throw badExpiry
        }
    }

    static var badExpiry: KiiError {
        KiiError.invalidInput("'expires_in' is a positive number of seconds.", field: "expires_in")
    }
}
