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
            let (limit, before) = Self.paging(request)
            let page = try await environment.store.securityEvents(appID: caller.appID, limit: limit, before: before)
            return Self.page("events", page.map { ($0.sequence, $0.event.json) }, limit: limit)
        }
        group.get("dead-letters") { request, context in
            let caller = try await environment.authenticator.caller(request, context, appID: try context.parameters.appID())
            guard caller.principal == .admin else { throw caller.denied("read the dead letters") }
            let (limit, before) = Self.paging(request)
            let page = try await environment.store.deadLetters(appID: caller.appID, limit: limit, before: before)
            return Self.page("deadLetters", page.map { ($0.sequence, $0.letter.json) }, limit: limit)
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

    /// `?limit=` (1 to 1000, default 100) and `?paginationKey=` of a newest-first listing.
    static func paging(_ request: Request) -> (limit: Int, before: Int64?) {
        let query = request.uri.queryParameters
        return (min(1000, max(1, query.get("limit").flatMap { Int($0) } ?? 100)), query.get("paginationKey").flatMap { Int64($0) })
    }

    /// One page under `key`, with `nextPaginationKey` when the page is full.
    static func page(_ key: String, _ rows: [(sequence: Int64, json: JSONValue)], limit: Int) -> Response {
        var body: [String: JSONValue] = [key: .array(rows.map(\.json))]
        if rows.count == limit, let last = rows.last { body["nextPaginationKey"] = .string(String(last.sequence)) }
        return JSONResponse.ok(.object(body))
    }
}
