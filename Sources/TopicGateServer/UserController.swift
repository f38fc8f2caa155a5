import HTTPTypes
import Hummingbird
import TopicGateCore
import TopicGateStore

/// `/api/apps/{appID}/users…`: pseudo users, registration, token login (`users/me`), update and
/// upgrade, password change, deletion.
struct UserController<Context: RequestContext>: Sendable {
    let environment: ServerEnvironment

    func addRoutes(to group: RouterGroup<Context>) {
        group.post("users") { request, context in
            let appID = try context.parameters.appID()
            let caller = try await environment.authenticator.caller(request, context, appID: appID)
            let body = try await environment.body.object(request, emptyAllowed: true)
            if caller.principal != .admin {
                try environment.abuse.admitSignup(appID: caller.appID, address: environment.clientAddress(request, context))
            }
            let mediaType = MediaTypeName(request)
            let (user, token): (User, String?)
            if mediaType.contains("registrationrequest") && !mediaType.contains("andauthorization") {
                (user, token) = try await environment.users.register(caller: caller, body: body, authorize: false)
            } else if body["password"] != nil {
                (user, token) = try await environment.users.register(caller: caller, body: body, authorize: true)
            } else {
                (user, token) = try await environment.users.createPseudoUser(caller: caller, body: body)
            }
            var json = user.json.objectValue ?? [:]
            if let token { json["_accessToken"] = .string(token) }
            return JSONResponse.created(
                .object(json), mediaType: "application/vnd.kii.RegistrationResponse+json",
                location: environment.location("/api/apps/\(appID)/users/\(user.id.rawValue)"))
        }
        group.get("users/:user") { request, context in
            let appID = try context.parameters.appID()
            let caller = try await environment.authenticator.caller(request, context, appID: appID)
            let reference = try context.parameters.userReference(appID: appID)
            return JSONResponse.ok(
                try await environment.users.read(caller: caller, reference: reference),
                mediaType: "application/vnd.kii.UserDataRetrievalResponse+json")
        }
        group.post("users/:user") { request, context in
            let appID = try context.parameters.appID()
            let caller = try await environment.authenticator.caller(request, context, appID: appID)
            let reference = try context.parameters.userReference(appID: appID)
            let body = try await environment.body.object(request)
            let user = try await environment.users.update(caller: caller, reference: reference, body: body)
            return JSONResponse.ok(user.json, mediaType: "application/vnd.kii.UserUpdateResponse+json")
        }
        group.delete("users/:user") { request, context in
            let appID = try context.parameters.appID()
            let caller = try await environment.authenticator.caller(request, context, appID: appID)
            try await environment.users.delete(caller: caller, reference: try context.parameters.userReference(appID: appID))
            // Its topics and every ACL entry naming it are gone with it.
            environment.topicCache.invalidateAll()
            return JSONResponse.noContent()
        }
        group.put("users/:user/password") { request, context in
            let appID = try context.parameters.appID()
            let caller = try await environment.authenticator.caller(request, context, appID: appID)
            let reference = try context.parameters.userReference(appID: appID)
            let body = try await environment.body.object(request)
            try await environment.users.changePassword(caller: caller, reference: reference, body: body)
            return JSONResponse.noContent()
        }
        group.put("users/:user/status") { request, context in
            let appID = try context.parameters.appID()
            let caller = try await environment.authenticator.caller(request, context, appID: appID)
            let reference = try context.parameters.userReference(appID: appID)
            let body = try await environment.body.object(request)
            try await environment.users.setDisabled(caller: caller, reference: reference, body: body)
            return JSONResponse.noContent()
        }
    }
}
