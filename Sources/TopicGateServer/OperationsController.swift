import HTTPTypes
import Hummingbird
import TopicGateCore
import TopicGateStore

/// Operator endpoints of our own (admin only): the security audit trail, the dead letters
/// (pushes the broker refused or that kept failing) and the idle pseudo user cleanup.
struct OperationsController<Context: RequestContext>: Sendable {
    let environment: ServerEnvironment

    func addRoutes(to group: RouterGroup<Context>) {
        group.get("security-audit") { request, context in
            let caller = try await environment.authenticator.caller(request, context, appID: try context.parameters.appID())
            guard caller.principal == .admin else { throw caller.denied("read the security audit") }
            let query = request.uri.queryParameters
            let limit = min(1000, max(1, query.get("limit").flatMap { Int($0) } ?? 100))
            let before = query.get("paginationKey").flatMap { Int64($0) }
            let page = try await environment.store.securityEvents(appID: caller.appID, limit: limit, before: before)
            var body: [String: JSONValue] = ["events": .array(page.map(\.event.json))]
            if page.count == limit, let last = page.last { body["nextPaginationKey"] = .string(String(last.sequence)) }
            return JSONResponse.ok(.object(body))
        }
        group.get("dead-letters") { request, context in
            let caller = try await environment.authenticator.caller(request, context, appID: try context.parameters.appID())
            guard caller.principal == .admin else { throw caller.denied("read the dead letters") }
            let query = request.uri.queryParameters
            let limit = min(1000, max(1, query.get("limit").flatMap { Int($0) } ?? 100))
            let before = query.get("paginationKey").flatMap { Int64($0) }
            let page = try await environment.store.deadLetters(appID: caller.appID, limit: limit, before: before)
            var body: [String: JSONValue] = ["deadLetters": .array(page.map(\.letter.json))]
            if page.count == limit, let last = page.last { body["nextPaginationKey"] = .string(String(last.sequence)) }
            return JSONResponse.ok(.object(body))
        }
        group.post("pseudo-user-cleanup") { request, context in
            let caller = try await environment.authenticator.caller(request, context, appID: try context.parameters.appID())
            guard caller.principal == .admin else { throw caller.denied("clean up pseudo users") }
            let body = try await environment.body.object(request)
            guard let idleDays = body["idleDays"]?.intValue, idleDays >= 1, idleDays <= 36_500 else {
                throw KiiError.invalidInput("'idleDays' must be a whole number of days from 1.", field: "idleDays")
            }
            if body["dryRun"] != nil && body["dryRun"]?.boolValue == nil {
                throw KiiError.invalidInput("'dryRun' must be true or false.", field: "dryRun")
            }
            let report = try await environment.cleanup.run(
                appID: caller.appID, idleDays: Int(idleDays), dryRun: body["dryRun"]?.boolValue ?? false,
                actor: caller.principal.description)
            return JSONResponse.ok(report.json)
        }
    }
}
