import Hummingbird
import TopicGateCore

/// `/api/apps/{appID}/users…`: pseudo users, registration, token login (`users/me`), update and
/// upgrade, password change, deletion.
struct UserController<Context: CallerRequestContext>: Sendable {
    let users: UserService
    let body: RequestBody
    let location: ResourceLocation

    func addRoutes(to group: RouterGroup<Context>) {
        group.post("users") { request, context in
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
        group.get("users/:user") { _, context in
            let caller = try context.caller
            return JSONResponse.ok(
                try await users.read(
                    caller: caller, reference: try context.parameters.userReference(appID: caller.appID)),
                mediaType: "application/vnd.kii.UserDataRetrievalResponse+json")
        }
        group.post("users/query") { request, context in
            let caller = try context.caller
            let query = try QueryRequest(envelope: "userQuery", body: try await body.object(request))
            return JSONResponse.ok(
                try await users.query(caller: caller, request: query),
                mediaType: "application/vnd.kii.UserQueryResponse+json")
        }
        group.post("users/:user") { request, context in
            let caller = try context.caller
            let reference = try context.parameters.userReference(appID: caller.appID)
            let fields = try await body.decode(UserFields.self, from: request)
            let user = try await users.update(caller: caller, reference: reference, fields: fields)
            return JSONResponse.ok(user.json, mediaType: "application/vnd.kii.UserUpdateResponse+json")
        }
        group.delete("users/:user") { _, context in
            let caller = try context.caller
            try await users.delete(caller: caller, reference: try context.parameters.userReference(appID: caller.appID))
            return JSONResponse.noContent()
        }
        group.put("users/:user/password") { request, context in
            let caller = try context.caller
            let reference = try context.parameters.userReference(appID: caller.appID)
            let change = try await body.decode(PasswordChangeRequest.self, from: request)
            try await users.changePassword(caller: caller, reference: reference, request: change)
            return JSONResponse.noContent()
        }
        group.put("users/:user/status") { request, context in
            let caller = try context.caller
            let reference = try context.parameters.userReference(appID: caller.appID)
            let status = try await body.decode(StatusChangeRequest.self, from: request)
            try await users.setDisabled(caller: caller, reference: reference, request: status)
            return JSONResponse.noContent()
        }
    }
}
