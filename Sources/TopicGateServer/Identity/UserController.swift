import Hummingbird
import TopicGateCore

/// `/api/apps/{appID}/users…`: pseudo users, registration, token login (`users/me`), update and
/// upgrade, password change, deletion.
struct UserController<Context: CallerRequestContext>: RouteTable {
    let users: UserService
    let body: RequestBody
    let location: ResourceLocation

    static var tag: String { "Identity" }

    static var routes: [APIRoute<Self>] {
        let fields = APISchema.object(
            [
                "loginName": APISchema.string, "emailAddress": APISchema.string, "phoneNumber": APISchema.string,
                "password": APISchema.string, "displayName": APISchema.string, "country": APISchema.string,
                "locale": APISchema.string,
            ])
        return [
            .post(
                "users", "A pseudo user, or a user with a password",
                body: APISchema.json(
                    fields, "application/vnd.kii.RegistrationAndAuthorizationRequest+json",
                    "application/vnd.kii.RegistrationRequest+json", required: false), success: [201], Self.create),
            .post(
                "users/query", "Query users with Kii's clauses (admin)", who: .admin,
                body: APISchema.json(APISchema.query("userQuery"), "application/vnd.kii.UserQueryRequest+json"),
                Self.query),
            .get("users/{user}", "A user (me, an ID, LOGIN_NAME:, EMAIL:, PHONE:)", Self.read),
            .post(
                "users/{user}", "Update a user; with a password, upgrade a pseudo user",
                body: APISchema.json(fields, "application/vnd.kii.UserUpdateRequest+json"), Self.update),
            .delete("users/{user}", "Delete a user", Self.delete),
            .put(
                "users/{user}/password", "Change a password",
                body: APISchema.json(
                    APISchema.object(
                        ["oldPassword": APISchema.string, "newPassword": APISchema.string], required: ["newPassword"]),
                    "application/vnd.kii.ChangePasswordRequest+json"), Self.changePassword),
            .put(
                "users/{user}/status", "Disable or enable a user (admin)", who: .admin,
                body: APISchema.json(APISchema.object(["disabled": APISchema.boolean], required: ["disabled"])),
                Self.setStatus),
        ]
    }

    func create(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let fields = try await body.decode(UserFields.self, from: request, emptyAllowed: true)
        let mediaType = MediaTypeName(request)
        let (user, token): (User, String?)
        if mediaType.contains("registrationrequest") && !mediaType.contains("andauthorization") {
            (user, token) = try await users.register(caller: caller, fields: fields, authorize: false)
        } else if fields.password != nil {
            (user, token) = try await users.register(caller: caller, fields: fields, authorize: true)
        } else {
            (user, token) = try await users.createPseudoUser(caller: caller, fields: fields)
        }
        var json = user.json.objectValue ?? [:]
        if let token { json["_accessToken"] = .string(token) }
        return JSONResponse.created(
            .object(json), mediaType: "application/vnd.kii.RegistrationResponse+json",
            location: location("/api/apps/\(caller.appID.rawValue)/users/\(user.id.rawValue)"))
    }

    func read(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        return JSONResponse.ok(
            try await users.read(caller: caller, reference: try context.parameters.userReference(appID: caller.appID)),
            mediaType: "application/vnd.kii.UserDataRetrievalResponse+json")
    }

    func query(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let query = try QueryRequest(envelope: "userQuery", body: try await body.object(request))
        return JSONResponse.ok(
            try await users.query(caller: caller, request: query),
            mediaType: "application/vnd.kii.UserQueryResponse+json")
    }

    func update(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let reference = try context.parameters.userReference(appID: caller.appID)
        let fields = try await body.decode(UserFields.self, from: request)
        let user = try await users.update(caller: caller, reference: reference, fields: fields)
        return JSONResponse.ok(user.json, mediaType: "application/vnd.kii.UserUpdateResponse+json")
    }

    func delete(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        try await users.delete(caller: caller, reference: try context.parameters.userReference(appID: caller.appID))
        return JSONResponse.noContent()
    }

    func changePassword(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let reference = try context.parameters.userReference(appID: caller.appID)
        let change = try await body.decode(PasswordChangeRequest.self, from: request)
        try await users.changePassword(caller: caller, reference: reference, request: change)
        return JSONResponse.noContent()
    }

    func setStatus(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let reference = try context.parameters.userReference(appID: caller.appID)
        let status = try await body.decode(StatusChangeRequest.self, from: request)
        try await users.setDisabled(caller: caller, reference: reference, request: status)
        return JSONResponse.noContent()
    }
}
