import Hummingbird
import TopicGateCore

/// `/api/apps/{appID}/things…`: registration, read, update, delete, password, ownership.
struct ThingController<Context: CallerRequestContext>: RouteTable {
    let things: ThingService
    let body: RequestBody
    let location: ResourceLocation

    static var tag: String { "Things" }

    static var routes: [APIRoute<Self>] {
        let thing = "things/{thing}"
        let owner = thing + "/ownership/{owner}"
        return [
            .post(
                "things", "Register a thing (with its token)",
                body: APISchema.json(
                    registration, "application/vnd.kii.ThingRegistrationAndAuthorizationRequest+json",
                    "application/vnd.kii.ThingRegistrationRequest+json"), success: [201], Self.register),
            .post(
                "things/query", "Query things with Kii's clauses (the admin; a user, limited to its own things)",
                body: APISchema.json(APISchema.query("thingQuery"), "application/vnd.kii.ThingQueryRequest+json"),
                Self.query),
            .get(thing, "A thing (its ID or VENDOR_THING_ID:…)", Self.read),
            .patch(
                thing, "Update a thing's fields",
                body: APISchema.json(APISchema.anyObject, "application/vnd.kii.ThingUpdateRequest+json"),
                success: [200],
                Self.update),
            .delete(thing, "Delete a thing", Self.delete),
            .put(
                thing + "/status", "Disable or enable a thing (admin)", who: .admin,
                body: APISchema.json(APISchema.object(["disabled": APISchema.boolean], required: ["disabled"])),
                Self.setStatus),
            .put(
                thing + "/password", "Change a thing's password",
                body: APISchema.json(
                    APISchema.object(["newPassword": APISchema.string], required: ["newPassword"]),
                    "application/vnd.kii.ChangeThingPasswordRequest+json"), Self.changePassword),
            .post(
                thing + "/ownership", "Claim ownership with the thing's password",
                body: ownershipClaim, success: [204], Self.claimOwnership),
            .get(thing + "/ownership", "A thing's owners", Self.owners),
            .put(owner, "Add an owner (user:ID or group:ID)", Self.addOwner),
            .head(owner, "Is it an owner?", Self.isOwner),
            .delete(owner, "Remove an owner", Self.removeOwner),
            .put(
                thing + "/vendor-thing-id", "A new vendor thing ID and password (the thing, an owner or the admin)",
                body: vendorThingIDChange, Self.changeVendorThingID),
            .get(
                thing + "/vendor-thing-id", "A thing's vendor thing ID",
                mediaType: "application/vnd.kii.VendorThingIDRetrievalResponse+json", Self.vendorThingID),
        ]
    }

    static var ownershipClaim: APIOperation.Body {
        APISchema.json(
            APISchema.object(
                ["thingPassword": APISchema.string, "userID": APISchema.string, "groupID": APISchema.string],
                required: ["thingPassword"]), "application/vnd.kii.ThingOwnershipRequest+json")
    }

    static var vendorThingIDChange: APIOperation.Body {
        APISchema.json(
            APISchema.object(
                ["_vendorThingID": APISchema.string, "_password": APISchema.string],
                required: ["_vendorThingID", "_password"]), "application/vnd.kii.VendorThingIDUpdateRequest+json")
    }

    /// A thing's fields as registered.
    static var registration: JSONValue {
        APISchema.object(
            [
                "_vendorThingID": APISchema.string, "_password": APISchema.string, "_thingType": APISchema.string,
                "_vendor": APISchema.string, "_firmwareVersion": APISchema.string,
                "_layoutPosition": APISchema.oneOf(["END_NODE", "STANDALONE", "GATEWAY"]),
            ], required: ["_vendorThingID", "_password"])
    }

    func register(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let registration = try await body.decode(ThingRegistrationRequest.self, from: request)
        let authorize = !MediaTypeName(request).contains("thingregistrationrequest")
        let (thing, token) = try await things.register(caller: caller, request: registration, authorize: authorize)
        var json = thing.json.objectValue ?? [:]
        if let token { json["_accessToken"] = .string(token) }
        return JSONResponse.created(
            .object(json), mediaType: "application/vnd.kii.ThingRegistrationResponse+json",
            location: location("/api/apps/\(caller.appID.rawValue)/things/\(thing.id.rawValue)"))
    }

    func query(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let query = try QueryRequest(envelope: "thingQuery", body: try await body.object(request))
        return JSONResponse.ok(
            try await things.query(caller: caller, request: query),
            mediaType: "application/vnd.kii.ThingQueryResponse+json")
    }

    func read(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let thing = try await things.read(caller: caller, reference: try reference(context))
        return JSONResponse.ok(
            try await things.json(of: thing), mediaType: "application/vnd.kii.ThingRetrievalResponse+json")
    }

    func update(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let fields = try await body.decode(ThingFields.self, from: request)
        let thing = try await things.update(caller: caller, reference: try reference(context), fields: fields)
        return JSONResponse.ok(thing.json, mediaType: "application/vnd.kii.ThingRetrievalResponse+json")
    }

    func delete(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        try await things.delete(caller: caller, reference: try reference(context))
        return JSONResponse.noContent()
    }

    func setStatus(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let status = try await body.decode(StatusChangeRequest.self, from: request)
        try await things.setDisabled(caller: caller, reference: try reference(context), request: status)
        return JSONResponse.noContent()
    }

    func changePassword(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let change = try await body.decode(PasswordChangeRequest.self, from: request)
        try await things.changePassword(caller: caller, reference: try reference(context), request: change)
        return JSONResponse.noContent()
    }

    func changeVendorThingID(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let change = try await body.decode(VendorThingIDChangeRequest.self, from: request)
        try await things.changeVendorThingID(caller: caller, reference: try reference(context), request: change)
        return JSONResponse.noContent()
    }

    func vendorThingID(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let thing = try await things.read(caller: caller, reference: try reference(context))
        return try JSONResponse.ok(
            encoding: VendorThingIDAnswer(_vendorThingID: thing.vendorThingID),
            mediaType: "application/vnd.kii.VendorThingIDRetrievalResponse+json")
    }

    func claimOwnership(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let claim = try await body.decode(OwnershipClaimRequest.self, from: request)
        _ = try await things.claimOwnership(caller: caller, reference: try reference(context), request: claim)
        return JSONResponse.noContent()
    }

    func owners(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let owners = try await things.owners(caller: caller, reference: try reference(context))
        return try JSONResponse.ok(encoding: ThingOwnerList(owners))
    }

    func addOwner(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let owner = try context.parameters.owner()
        try await things.addOwner(caller: caller, reference: try reference(context), owner: owner)
        return JSONResponse.noContent()
    }

    func isOwner(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let owner = try context.parameters.owner()
        let owns = try await things.isOwner(caller: caller, reference: try reference(context), owner: owner)
        return Response(status: owns ? .noContent : .notFound)
    }

    func removeOwner(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let owner = try context.parameters.owner()
        try await things.removeOwner(caller: caller, reference: try reference(context), owner: owner)
        return JSONResponse.noContent()
    }

    func reference(_ context: Context) throws -> ThingReference {
        try context.parameters.thingReference(appID: try context.caller.appID)
    }
}
