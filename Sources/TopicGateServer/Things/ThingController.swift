import Hummingbird
import TopicGateCore

/// `/api/apps/{appID}/things…`: registration, read, update, delete, password, ownership.
struct ThingController<Context: CallerRequestContext>: Sendable {
    let things: ThingService
    let body: RequestBody
    let location: ResourceLocation

    func addRoutes(to group: RouterGroup<Context>) {
        group.post("things") { request, context in
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
        group.post("things/query") { request, context in
            let caller = try context.caller
            let query = try QueryRequest(envelope: "thingQuery", body: try await body.object(request))
            return JSONResponse.ok(
                try await things.query(caller: caller, request: query),
                mediaType: "application/vnd.kii.ThingQueryResponse+json")
        }
        group.get("things/:thing") { request, context in
            let caller = try context.caller
            let thing = try await things.read(caller: caller, reference: try reference(context))
            return JSONResponse.ok(
                try await things.json(of: thing), mediaType: "application/vnd.kii.ThingRetrievalResponse+json")
        }
        group.patch("things/:thing") { request, context in
            let caller = try context.caller
            let fields = try await body.decode(ThingFields.self, from: request)
            let thing = try await things.update(caller: caller, reference: try reference(context), fields: fields)
            return JSONResponse.ok(thing.json, mediaType: "application/vnd.kii.ThingRetrievalResponse+json")
        }
        group.delete("things/:thing") { request, context in
            let caller = try context.caller
            try await things.delete(caller: caller, reference: try reference(context))
            return JSONResponse.noContent()
        }
        group.put("things/:thing/status") { request, context in
            let caller = try context.caller
            let status = try await body.decode(StatusChangeRequest.self, from: request)
            try await things.setDisabled(caller: caller, reference: try reference(context), request: status)
            return JSONResponse.noContent()
        }
        group.put("things/:thing/password") { request, context in
            let caller = try context.caller
            let change = try await body.decode(PasswordChangeRequest.self, from: request)
            try await things.changePassword(caller: caller, reference: try reference(context), request: change)
            return JSONResponse.noContent()
        }
        group.put("things/:thing/vendor-thing-id") { request, context in
            let caller = try context.caller
            let change = try await body.decode(VendorThingIDChangeRequest.self, from: request)
            try await things.changeVendorThingID(caller: caller, reference: try reference(context), request: change)
            return JSONResponse.noContent()
        }
        group.get("things/:thing/vendor-thing-id") { _, context in
            let caller = try context.caller
            let thing = try await things.read(caller: caller, reference: try reference(context))
            return JSONResponse.ok(
                ["_vendorThingID": .string(thing.vendorThingID)],
                mediaType: "application/vnd.kii.VendorThingIDRetrievalResponse+json")
        }
        group.post("things/:thing/ownership") { request, context in
            let caller = try context.caller
            let claim = try await body.decode(OwnershipClaimRequest.self, from: request)
            _ = try await things.claimOwnership(caller: caller, reference: try reference(context), request: claim)
            return JSONResponse.noContent()
        }
        group.get("things/:thing/ownership") { request, context in
            let caller = try context.caller
            let owners = try await things.owners(caller: caller, reference: try reference(context))
            var users: [JSONValue] = []
            var groups: [JSONValue] = []
            for owner in owners.sorted(by: { "\($0)" < "\($1)" }) {
                switch owner {
                case .user(let id): users.append(.string(id.rawValue))
                case .group(let id): groups.append(.string(id.rawValue))
                }
            }
            return JSONResponse.ok(["users": .array(users), "groups": .array(groups)])
        }
        group.put("things/:thing/ownership/:owner") { request, context in
            let caller = try context.caller
            let owner = try context.parameters.owner()
            try await things.addOwner(caller: caller, reference: try reference(context), owner: owner)
            return JSONResponse.noContent()
        }
        group.head("things/:thing/ownership/:owner") { request, context in
            let caller = try context.caller
            let owner = try context.parameters.owner()
            let owns = try await things.isOwner(caller: caller, reference: try reference(context), owner: owner)
            return Response(status: owns ? .noContent : .notFound)
        }
        group.delete("things/:thing/ownership/:owner") { request, context in
            let caller = try context.caller
            let owner = try context.parameters.owner()
            try await things.removeOwner(caller: caller, reference: try reference(context), owner: owner)
            return JSONResponse.noContent()
        }
    }

    func reference(_ context: Context) throws -> ThingReference {
        try context.parameters.thingReference(appID: try context.caller.appID)
    }
}
