import Hummingbird
import TopicGateCore

/// Thing-IF routes under `/thing-if/apps/{appID}`: a thing's type and firmware version, and under
/// `targets/thing:{thingID}` commands, action results, states, and the state history extension.
struct ThingIFController<Context: CallerRequestContext>: Sendable {
    let things: ThingService
    let commands: CommandService
    let states: ThingStateService
    let body: RequestBody

    /// Routes under the Thing-IF app group (`/thing-if/apps/{appID}`).
    func addRoutes(to group: RouterGroup<Context>) {
        for field in [ThingInformationUpdate.Field.thingType, .firmwareVersion] {
            let path = "things/:thing/\(field == .thingType ? "thing-type" : "firmware-version")"
            group.put(RouterPath(path)) { request, context in
                let caller = try context.caller
                let update = try ThingInformationUpdate(field, body: try await body.object(request))
                try await things.setInformation(
                    caller: caller, reference: try context.parameters.thingReference(appID: caller.appID),
                    update: update)
                return JSONResponse.noContent()
            }
            group.get(RouterPath(path)) { _, context in
                let caller = try context.caller
                let value = try await things.information(
                    caller: caller, reference: try context.parameters.thingReference(appID: caller.appID),
                    field: field)
                return JSONResponse.ok(
                    [field.rawValue: .string(value)], mediaType: "application/vnd.kii.ThingTypeRetrievalResponse+json")
            }
        }
        let target = group.group("targets/:target")
        target.post("commands") { request, context in
            let (caller, thing) = try resolve(context)
            let commandRequest = try await body.decode(CommandRequest.self, from: request)
            // `?trace=true` (the admin's): each device's outcome of the command's push is recorded.
            let traced = request.uri.queryParameters.get("trace") == "true"
            let command = try await commands.create(
                caller: caller, thing: thing, request: commandRequest, traced: traced)
            var answer: [String: JSONValue] = ["commandID": .string(command.id.rawValue)]
            if traced {
                answer["deliveries"] = .string(
                    "/api/apps/\(caller.appID.rawValue)/push/messages/\(command.id.rawValue)/deliveries")
            }
            return JSONResponse.created(.object(answer))
        }
        target.get("commands") { request, context in
            let (caller, thing) = try resolve(context)
            let query = request.uri.queryParameters
            let limit = query.get("bestEffortLimit").flatMap { Int($0) }
            let page = try await commands.list(
                caller: caller, thing: thing, limit: limit, after: query.get("paginationKey"))
            var body: [String: JSONValue] = ["commands": .array(page.commands.map(\.json))]
            if let next = page.next { body["nextPaginationKey"] = .string(next) }
            return JSONResponse.ok(.object(body))
        }
        target.get("commands/:commandID") { request, context in
            let (caller, thing) = try resolve(context)
            let command = try await commands.read(
                caller: caller, thing: thing, id: CommandID(try context.parameters.require("commandID")))
            return JSONResponse.ok(command.json)
        }
        target.put("commands/:commandID/action-results") { request, context in
            let (caller, thing) = try resolve(context)
            let results = try await body.decode(ActionResults.self, from: request)
            try await commands.recordResults(
                caller: caller, thing: thing, id: CommandID(try context.parameters.require("commandID")),
                results: results)
            return JSONResponse.noContent()
        }
        target.put("states") { request, context in
            let (caller, thing) = try resolve(context)
            if MediaTypeName(request).contains("multipletraitstate") {
                let report = try TraitStateReport(aliases: try await body.object(request, emptyAllowed: true))
                try await states.report(caller: caller, thing: thing, traits: report)
            } else {
                let report = try await body.decode(StateReportRequest.self, from: request, emptyAllowed: true)
                try await states.report(caller: caller, thing: thing, request: report)
            }
            return JSONResponse.noContent()
        }
        target.get("states") { request, context in
            let (caller, thing) = try resolve(context)
            return JSONResponse.ok(.object(try await states.latest(caller: caller, thing: thing)))
        }
        target.put("states/aliases/:alias") { request, context in
            let (caller, thing) = try resolve(context)
            let report = try TraitStateReport(
                alias: try context.parameters.require("alias"), body: try await body.object(request, emptyAllowed: true)
            )
            try await states.report(caller: caller, thing: thing, traits: report)
            return JSONResponse.noContent()
        }
        target.get("states/aliases/:alias") { request, context in
            let (caller, thing) = try resolve(context)
            return JSONResponse.ok(
                .object(
                    try await states.latest(
                        caller: caller, thing: thing, alias: try context.parameters.require("alias"))))
        }
        target.post("states/aliases/:alias/query") { request, context in
            let (caller, thing) = try resolve(context)
            return JSONResponse.ok(
                try await states.query(
                    caller: caller, thing: thing, alias: try context.parameters.require("alias"),
                    body: try await body.object(request)))
        }
        // Extension: one alias's history, as `…/states/history` below.
        target.get("states/aliases/:alias/history") { request, context in
            let (caller, thing) = try resolve(context)
            return try await history(
                request, caller: caller, thing: thing, alias: try context.parameters.require("alias"))
        }
        // Extension: `GET …/states/history?from=&to=&limit=` (ms, inclusive; oldest first). A
        // page holds at most `limit` states and about 1 MiB; `complete: false` says to ask again.
        target.get("states/history") { request, context in
            let (caller, thing) = try resolve(context)
            return try await history(request, caller: caller, thing: thing, alias: nil)
        }
    }

    /// A history page: `{"states":[{"recordedAt","state"}],"complete"}`; without an alias, a
    /// trait alias's state is listed under its alias.
    private func history(_ request: Request, caller: Caller, thing: ThingReference, alias: String?) async throws
        -> Response
    {
        let query = request.uri.queryParameters
        let from = try Self.nonNegative(query.get("from"), "from")
        let to = try Self.nonNegative(query.get("to"), "to")
        let limit = try Self.nonNegative(query.get("limit"), "limit").map { Int(clamping: $0) }
        let page = try await states.history(
            caller: caller, thing: thing, alias: alias, from: from.map { UnixMillis($0) },
            to: to.map { UnixMillis($0) },
            limit: limit)
        return JSONResponse.ok(
            .object([
                "states": .array(
                    page.states.map {
                        .object([
                            "recordedAt": $0.recordedAt.json,
                            "state": .object(alias == nil ? $0.listedState : $0.state),
                        ])
                    }),
                "complete": .bool(page.complete),
            ]))
    }

    private func resolve(_ context: Context) throws -> (Caller, ThingReference) {
        let caller = try context.caller
        return (caller, try context.parameters.target(appID: caller.appID))
    }

    static func nonNegative(_ text: String?, _ name: String) throws -> Int64? {
        guard let text else { return nil }
        guard let value = Int64(text), value >= 0 else {
            throw KiiError.invalidInput("'\(name)' must be a non-negative integer.", field: name)
        }
        return value
    }
}
