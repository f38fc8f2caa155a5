import Hummingbird
import TopicGateCore

/// `/api/apps/{appID}/groups…`: create (with or without an ID), read, delete, rename, change
/// owner, members, and a user's groups.
struct GroupController<Context: CallerRequestContext>: RouteTable {
    let groups: GroupService
    let body: RequestBody
    let location: ResourceLocation

    static var tag: String { "Groups" }

    static var routes: [APIRoute<Self>] {
        let creation = APISchema.json(
            APISchema.object(
                [
                    "name": APISchema.string, "owner": APISchema.string,
                    "members": APISchema.array(of: APISchema.string),
                ],
                required: ["name"]),
            "application/vnd.kii.GroupCreationRequest+json")
        return [
            .post("groups", "Create a group", body: creation, success: [201], Self.create),
            .get(
                "groups", "Groups by owner or member",
                query: [("owner", APISchema.string), ("is_member", APISchema.string)],
                Self.list),
            .put("groups/{group}", "Create a group with its ID", body: creation, success: [201], Self.createWithID),
            .get("groups/{group}", "A group", Self.read),
            .delete("groups/{group}", "Delete a group", Self.delete),
            .put(
                "groups/{group}/name", "Rename a group",
                body: APIOperation.Body(mediaTypes: ["text/plain", "application/json"], schema: APISchema.string),
                Self.rename),
            .put(
                "groups/{group}/owner", "Change a group's owner",
                body: APISchema.json(
                    APISchema.object(["owner": APISchema.string], required: ["owner"]),
                    "application/vnd.kii.GroupOwnerChangeRequest+json"), Self.changeOwner),
            .get("groups/{group}/members", "A group's members", Self.members),
            .put("groups/{group}/members/{member}", "Add a member", Self.addMember),
            .delete("groups/{group}/members/{member}", "Remove a member", Self.removeMember),
        ]
    }

    func create(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let creation = try await body.decode(GroupCreationRequest.self, from: request)
        return try created(caller, try await groups.create(caller: caller, id: nil, request: creation))
    }

    func createWithID(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let creation = try await body.decode(GroupCreationRequest.self, from: request)
        let id = try context.parameters.groupID()
        return try created(caller, try await groups.create(caller: caller, id: id, request: creation))
    }

    func list(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let query = request.uri.queryParameters
        let found = try await groups.groups(
            caller: caller, owner: query.get("owner").map(UserID.init(rawValue:)),
            member: query.get("is_member").map(UserID.init(rawValue:)))
        return try JSONResponse.ok(
            encoding: ListingPage("groups", found, next: nil),
            mediaType: "application/vnd.kii.GroupsRetrievalResponse+json")
    }

    func read(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let found = try await groups.read(caller: caller, id: try context.parameters.groupID())
        return try JSONResponse.ok(encoding: found, mediaType: "application/vnd.kii.GroupRetrievalResponse+json")
    }

    func delete(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        try await groups.delete(caller: caller, id: try context.parameters.groupID())
        return JSONResponse.noContent()
    }

    func rename(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let name = try await plainName(request)
        try await groups.rename(caller: caller, id: try context.parameters.groupID(), name: name)
        return JSONResponse.noContent()
    }

    func changeOwner(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let change = try await body.decode(GroupOwnerChangeRequest.self, from: request)
        try await groups.changeOwner(caller: caller, id: try context.parameters.groupID(), request: change)
        return JSONResponse.noContent()
    }

    func members(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let members = try await groups.members(caller: caller, id: try context.parameters.groupID())
        return try JSONResponse.ok(
            encoding: GroupMemberList(members), mediaType: "application/vnd.kii.MembersRetrievalResponse+json")
    }

    func addMember(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let user = try context.parameters.userID("member", appID: caller.appID)
        try await groups.addMember(caller: caller, id: try context.parameters.groupID(), user: user)
        return JSONResponse.noContent()
    }

    func removeMember(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let user = try context.parameters.userID("member", appID: caller.appID)
        try await groups.removeMember(caller: caller, id: try context.parameters.groupID(), user: user)
        return JSONResponse.noContent()
    }

    func created(_ caller: Caller, _ result: (Group, [UserID])) throws -> Response {
        let (group, notFound) = result
        return try JSONResponse.created(
            encoding: GroupCreation(group, notFound: notFound),
            mediaType: "application/vnd.kii.GroupCreationResponse+json",
            location: location("/api/apps/\(caller.appID.rawValue)/groups/\(group.id.rawValue)"))
    }

    /// The new name: the raw `text/plain` body, or a JSON string.
    func plainName(_ request: Request) async throws -> String {
        let bytes = try await body.bytes(request)
        if let value = try? JSONReader.value(bytes), let text = value.stringValue { return text }
        return String(decoding: bytes, as: UTF8.self)
    }
}
