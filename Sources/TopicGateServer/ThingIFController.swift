import HTTPTypes
import Hummingbird
import TopicGateCore
import TopicGateStore

/// Thing-IF routes under `/thing-if/apps/{appID}/targets/thing:{thingID}`: commands, action
/// results, states, and the state history extension.
struct ThingIFController<Context: RequestContext>: Sendable {
    let environment: ServerEnvironment

    func addRoutes(to router: Router<Context>) {
        let target = router.group("thing-if/apps/:appID/targets/:target")
        target.post("commands") { request, context in
            let (caller, thing) = try await resolve(request, context)
            let body = try await environment.body.object(request)
            let command = try await environment.commands.create(caller: caller, thing: thing, body: body)
            return JSONResponse.created(.object(["commandID": .string(command.id)]))
        }
        target.get("commands") { request, context in
            let (caller, thing) = try await resolve(request, context)
            let query = request.uri.queryParameters
            let limit = query.get("bestEffortLimit").flatMap { Int($0) }
            let page = try await environment.commands.list(
                caller: caller, thing: thing, limit: limit, after: query.get("paginationKey"))
            var body: [String: JSONValue] = ["commands": .array(page.commands.map(\.json))]
            if let next = page.next { body["nextPaginationKey"] = .string(next) }
            return JSONResponse.ok(.object(body))
        }
        target.get("commands/:commandID") { request, context in
            let (caller, thing) = try await resolve(request, context)
            let command = try await environment.commands.read(
                caller: caller, thing: thing, id: try context.parameters.require("commandID"))
            return JSONResponse.ok(command.json)
        }
        target.put("commands/:commandID/action-results") { request, context in
            let (caller, thing) = try await resolve(request, context)
            let body = try await environment.body.object(request)
            try await environment.commands.recordResults(
                caller: caller, thing: thing, id: try context.parameters.require("commandID"), body: body)
            return JSONResponse.noContent()
        }
        target.put("states") { request, context in
            let (caller, thing) = try await resolve(request, context)
            let body = try await environment.body.object(request, emptyAllowed: true)
            try await environment.states.report(caller: caller, thing: thing, body: body.isEmpty ? nil : .object(body))
            return JSONResponse.noContent()
        }
        target.get("states") { request, context in
            let (caller, thing) = try await resolve(request, context)
            return JSONResponse.ok(.object(try await environment.states.latest(caller: caller, thing: thing).state))
        }
        // Extension: `GET …/states/history?from=&to=&limit=` (ms, inclusive; oldest first). A
        // page holds at most `limit` states and about 1 MiB; `complete: false` says to ask again.
        target.get("states/history") { request, context in
            let (caller, thing) = try await resolve(request, context)
            let query = request.uri.queryParameters
            let from = try Self.nonNegative(query.get("from"), "from")
            let to = try Self.nonNegative(query.get("to"), "to")
            let limit = try Self.nonNegative(query.get("limit"), "limit").map { Int(clamping: $0) }
            let page = try await environment.states.history(caller: caller, thing: thing, from: from, to: to, limit: limit)
            return JSONResponse.ok(.object([
                "states": .array(page.states.map { .object(["recordedAt": .int($0.recordedAt), "state": .object($0.state)]) }),
                "complete": .bool(page.complete),
            ]))
        }
    }

    private func resolve(_ request: Request, _ context: Context) async throws -> (Caller, ThingReference) {
        let appID = try context.parameters.appID()
        let caller = try await environment.authenticator.caller(request, context, appID: appID)
        return (caller, try context.parameters.target(appID: appID))
    }

    static func nonNegative(_ text: String?, _ name: String) throws -> Int64? {
        guard let text else { return nil }
        guard let value = Int64(text), value >= 0 else {
            throw KiiError.invalidInput("'\(name)' must be a non-negative integer.", field: name)
        }
        return value
    }
}
