import HTTPTypes
import Hummingbird
import TopicGateCore
import TopicGateStore

/// `/api/apps/{appID}/things…`: registration, read, update, delete, password, ownership.
struct ThingController<Context: RequestContext>: Sendable {
    let environment: ServerEnvironment

    func addRoutes(to group: RouterGroup<Context>) {
        group.post("things") { request, context in
            let caller = try await caller(request, context)
            let body = try await environment.body.object(request)
            if caller.principal != .admin { try environment.abuse.admitSignup(appID: caller.appID, address: caller.address) }
            let authorize = !MediaTypeName(request).contains("thingregistrationrequest")
            let (thing, token) = try await environment.things.register(caller: caller, body: body, authorize: authorize)
            var json = thing.json.objectValue ?? [:]
            if let token { json["_accessToken"] = .string(token) }
            return JSONResponse.created(
                .object(json), mediaType: "application/vnd.kii.ThingRegistrationResponse+json",
                location: environment.location("/api/apps/\(caller.appID.rawValue)/things/\(thing.id.rawValue)"))
        }
        group.get("things/:thing") { request, context in
            let caller = try await caller(request, context)
            let thing = try await environment.things.read(caller: caller, reference: try reference(context))
            return JSONResponse.ok(thing.json, mediaType: "application/vnd.kii.ThingRetrievalResponse+json")
        }
        group.patch("things/:thing") { request, context in
            let caller = try await caller(request, context)
            let body = try await environment.body.object(request)
            let thing = try await environment.things.update(caller: caller, reference: try reference(context), body: body)
            return JSONResponse.ok(thing.json, mediaType: "application/vnd.kii.ThingRetrievalResponse+json")
        }
        group.delete("things/:thing") { request, context in
            let caller = try await caller(request, context)
            try await environment.things.delete(caller: caller, reference: try reference(context))
            // Its topics and every ACL entry naming it are gone with it.
            environment.topicCache.invalidateAll()
            return JSONResponse.noContent()
        }
        group.put("things/:thing/status") { request, context in
            let caller = try await caller(request, context)
            let body = try await environment.body.object(request)
            try await environment.things.setDisabled(caller: caller, reference: try reference(context), body: body)
            return JSONResponse.noContent()
        }
        group.put("things/:thing/password") { request, context in
            let caller = try await caller(request, context)
            let body = try await environment.body.object(request)
            try await environment.things.changePassword(caller: caller, reference: try reference(context), body: body)
            return JSONResponse.noContent()
        }
        group.post("things/:thing/ownership") { request, context in
            let caller = try await caller(request, context)
            let body = try await environment.body.object(request)
            _ = try await environment.things.claimOwnership(caller: caller, reference: try reference(context), body: body)
            return JSONResponse.noContent()
        }
        group.get("things/:thing/ownership") { request, context in
            let caller = try await caller(request, context)
            let owners = try await environment.things.owners(caller: caller, reference: try reference(context))
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
            let caller = try await caller(request, context)
            let owner = try context.parameters.owner()
            try await environment.things.addOwner(caller: caller, reference: try reference(context), owner: owner)
            return JSONResponse.noContent()
        }
        group.head("things/:thing/ownership/:owner") { request, context in
            let caller = try await caller(request, context)
            let owner = try context.parameters.owner()
            let owns = try await environment.things.isOwner(caller: caller, reference: try reference(context), owner: owner)
            return Response(status: owns ? .noContent : .notFound)
        }
        group.delete("things/:thing/ownership/:owner") { request, context in
            let caller = try await caller(request, context)
            let owner = try context.parameters.owner()
            try await environment.things.removeOwner(caller: caller, reference: try reference(context), owner: owner)
            return JSONResponse.noContent()
        }
    }

    func caller(_ request: Request, _ context: Context) async throws -> Caller {
        try await environment.authenticator.caller(request, context, appID: try context.parameters.appID())
    }

    func reference(_ context: Context) throws -> ThingReference {
        try context.parameters.thingReference(appID: try context.parameters.appID())
    }
}
