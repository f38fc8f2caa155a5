import HTTPTypes
import Hummingbird
import TopicGateCore
import TopicGateStore

/// `/api/apps/{appID}/groups…`: create (with or without an ID), read, delete, rename, change
/// owner, members, and a user's groups.
struct GroupController<Context: RequestContext>: Sendable {
    let environment: ServerEnvironment

    func addRoutes(to group: RouterGroup<Context>) {
        group.post("groups") { request, context in
            let caller = try await caller(request, context)
            let body = try await environment.body.object(request)
            return try await created(caller, try await environment.groups.create(caller: caller, id: nil, body: body))
        }
        group.put("groups/:group") { request, context in
            let caller = try await caller(request, context)
            let body = try await environment.body.object(request)
            let id = try context.parameters.groupID()
            return try await created(caller, try await environment.groups.create(caller: caller, id: id, body: body))
        }
        group.get("groups") { request, context in
            let caller = try await caller(request, context)
            let query = request.uri.queryParameters
            let groups = try await environment.groups.groups(
                caller: caller, owner: query.get("owner").map(UserID.init(rawValue:)),
                member: query.get("is_member").map(UserID.init(rawValue:)))
            return JSONResponse.ok(
                ["groups": .array(groups.map(\.json))], mediaType: "application/vnd.kii.GroupsRetrievalResponse+json")
        }
        group.get("groups/:group") { request, context in
            let caller = try await caller(request, context)
            let found = try await environment.groups.read(caller: caller, id: try context.parameters.groupID())
            return JSONResponse.ok(found.json, mediaType: "application/vnd.kii.GroupRetrievalResponse+json")
        }
        group.delete("groups/:group") { request, context in
            let caller = try await caller(request, context)
            try await environment.groups.delete(caller: caller, id: try context.parameters.groupID())
            // Its topics and every ACL entry naming it are gone with it.
            environment.topicCache.invalidateAll()
            return JSONResponse.noContent()
        }
        group.put("groups/:group/name") { request, context in
            let caller = try await caller(request, context)
            let name = try await plainName(request)
            try await environment.groups.rename(caller: caller, id: try context.parameters.groupID(), name: name)
            return JSONResponse.noContent()
        }
        group.put("groups/:group/owner") { request, context in
            let caller = try await caller(request, context)
            let body = try await environment.body.object(request)
            try await environment.groups.changeOwner(caller: caller, id: try context.parameters.groupID(), body: body)
            return JSONResponse.noContent()
        }
        group.get("groups/:group/members") { request, context in
            let caller = try await caller(request, context)
            let members = try await environment.groups.members(caller: caller, id: try context.parameters.groupID())
            return JSONResponse.ok(
                ["members": .array(members.map { ["userID": .string($0.rawValue)] })],
                mediaType: "application/vnd.kii.MembersRetrievalResponse+json")
        }
        group.put("groups/:group/members/:member") { request, context in
            let caller = try await caller(request, context)
            let user = try context.parameters.userID("member", appID: caller.appID.rawValue)
            try await environment.groups.addMember(caller: caller, id: try context.parameters.groupID(), user: user)
            return JSONResponse.noContent()
        }
        group.delete("groups/:group/members/:member") { request, context in
            let caller = try await caller(request, context)
            let user = try context.parameters.userID("member", appID: caller.appID.rawValue)
            try await environment.groups.removeMember(caller: caller, id: try context.parameters.groupID(), user: user)
            return JSONResponse.noContent()
        }
    }

    func caller(_ request: Request, _ context: Context) async throws -> Caller {
        try await environment.authenticator.caller(request, context, appID: try context.parameters.appID())
    }

    func created(_ caller: Caller, _ result: (Group, [UserID])) async throws -> Response {
        let (group, notFound) = result
        var body: [String: JSONValue] = ["groupID": .string(group.id.rawValue)]
        if !notFound.isEmpty { body["notFoundUsers"] = .array(notFound.map { .string($0.rawValue) }) }
        return JSONResponse.created(
            .object(body), mediaType: "application/vnd.kii.GroupCreationResponse+json",
            location: environment.location("/api/apps/\(caller.appID.rawValue)/groups/\(group.id.rawValue)"))
    }

    /// The new name: the raw `text/plain` body, or a JSON string.
    func plainName(_ request: Request) async throws -> String {
        let bytes = try await environment.body.bytes(request)
        if let value = try? JSONReader.value(bytes), let text = value.stringValue { return text }
        return String(decoding: bytes, as: UTF8.self)
    }
}
