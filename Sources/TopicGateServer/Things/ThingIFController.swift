import Hummingbird
import TopicGateCore

/// Thing-IF routes under `/thing-if/apps/{appID}`: a thing's type and firmware version, and under
/// `targets/thing:{thingID}` commands, action results, states, and the state history extension.
struct ThingIFController<Context: CallerRequestContext>: RouteTable {
    let things: ThingService
    let commands: CommandService
    let states: ThingStateService
    let body: RequestBody

    static var tag: String { "Thing-IF" }
    static var root: APIRoot { .thingIF }

    static var routes: [APIRoute<Self>] {
        let target = "targets/{target}"
        let alias = target + "/states/aliases/{alias}"
        let history: [APIOperation.Query] = [
            ("from", APISchema.integer), ("to", APISchema.integer), ("limit", APISchema.integer),
        ]
        return [
            .put(
                "things/{thing}/thing-type", "Set a thing's type (once)",
                body: field("thingType", "application/vnd.kii.ThingTypeUpdateRequest+json"),
                Self.setInformation(.thingType)),
            .get("things/{thing}/thing-type", "A thing's type", Self.information(.thingType)),
            .put(
                "things/{thing}/firmware-version", "Set a thing's firmware version",
                body: field("firmwareVersion", "application/vnd.kii.ThingFirmwareVersionUpdateRequest+json"),
                Self.setInformation(.firmwareVersion)),
            .get("things/{thing}/firmware-version", "A thing's firmware version", Self.information(.firmwareVersion)),
            .post(
                target + "/commands", "Send a command (thing:ID)", query: [("trace", APISchema.boolean)],
                body: commandCreation, success: [201], Self.sendCommand),
            .get(
                target + "/commands", "A thing's commands, newest first", query: APISchema.bestEffortPaging,
                Self.commandList),
            .get(target + "/commands/{commandID}", "A command", Self.command),
            .put(
                target + "/commands/{commandID}/action-results", "The thing's results", body: actionResults,
                Self.recordResults),
            .put(
                target + "/states",
                "The thing (an owner, an end node's gateway) reports its state: plain, or every trait alias",
                body: APISchema.json(APISchema.anyObject, "application/vnd.kii.MultipleTraitState+json"),
                Self.reportState),
            .put(
                alias, "One trait alias's state",
                body: APISchema.json(APISchema.anyObject, "application/vnd.kii.TraitState+json"), Self.reportAlias),
            .get(alias, "One trait alias's latest state", Self.aliasState),
            .post(
                alias + "/query",
                "Query one trait alias's state history: ungrouped (paged), grouped by interval, aggregated",
                body: stateQuery, Self.queryAlias),
            .get(
                alias + "/history", "One trait alias's state history, oldest first", query: history, Self.aliasHistory),
            .get(target + "/states", "A thing's latest state", Self.state),
            .get(
                target + "/states/history", "A thing's state history, oldest first", query: history, Self.stateHistory),
        ]
    }

    /// `{"<name>": "…"}` under `mediaType`.
    static func field(_ name: String, _ mediaType: String) -> APIOperation.Body {
        APISchema.json(APISchema.object([name: APISchema.string], required: [name]), mediaType)
    }

    static var commandCreation: APIOperation.Body {
        APISchema.json(
            APISchema.object(
                [
                    "actions": APISchema.array(of: APISchema.anyObject), "issuer": APISchema.string,
                    "title": APISchema.string, "description": APISchema.string, "metadata": APISchema.anyObject,
                    "schema": APISchema.string, "schemaVersion": APISchema.integer,
                ], required: ["actions", "issuer"]), "application/vnd.kii.CommandCreationRequest+json")
    }

    static var actionResults: APIOperation.Body {
        APISchema.json(
            APISchema.object(["actionResults": APISchema.array(of: APISchema.anyObject)], required: ["actionResults"]),
            "application/vnd.kii.CommandResultsUpdateRequest+json")
    }

    static var stateQuery: APIOperation.Body {
        APISchema.json(
            APISchema.object(["query": APISchema.anyObject], required: ["query"]),
            "application/vnd.kii.TraitStateQueryRequest+json")
    }

    static func setInformation(_ field: ThingInformationUpdate.Field) -> APIRoute<Self>.Handler {
        { controller in
            { request, context in
                let caller = try context.caller
                let update = try ThingInformationUpdate(field, body: try await controller.body.object(request))
                try await controller.things.setInformation(
                    caller: caller, reference: try context.parameters.thingReference(appID: caller.appID),
                    update: update)
                return JSONResponse.noContent()
            }
        }
    }

    static func information(_ field: ThingInformationUpdate.Field) -> APIRoute<Self>.Handler {
        { controller in
            { _, context in
                let caller = try context.caller
                let value = try await controller.things.information(
                    caller: caller, reference: try context.parameters.thingReference(appID: caller.appID),
                    field: field)
                return try JSONResponse.ok(
                    encoding: SingleMember(field.rawValue, value),
                    mediaType: "application/vnd.kii.ThingTypeRetrievalResponse+json")
            }
        }
    }

    /// `?trace=true` (the admin's): each device's outcome of the command's push is recorded.
    func sendCommand(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, thing) = try resolve(context)
        let commandRequest = try await body.decode(CommandRequest.self, from: request)
        let traced = request.uri.queryParameters.get("trace") == "true"
        let command = try await commands.create(caller: caller, thing: thing, request: commandRequest, traced: traced)
        return try JSONResponse.make(
            status: .created, encoding: CommandCreation(appID: caller.appID, id: command.id, traced: traced))
    }

    func commandList(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, thing) = try resolve(context)
        let query = request.uri.queryParameters
        let limit = query.get("bestEffortLimit").flatMap { Int($0) }
        let page = try await commands.list(
            caller: caller, thing: thing, limit: limit, after: query.get("paginationKey"))
        return try JSONResponse.ok(encoding: ListingPage("commands", page.commands, next: page.next))
    }

    func command(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, thing) = try resolve(context)
        let command = try await commands.read(
            caller: caller, thing: thing, id: CommandID(try context.parameters.require("commandID")))
        return try JSONResponse.ok(encoding: command)
    }

    func recordResults(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, thing) = try resolve(context)
        let results = try await body.decode(ActionResults.self, from: request)
        try await commands.recordResults(
            caller: caller, thing: thing, id: CommandID(try context.parameters.require("commandID")), results: results)
        return JSONResponse.noContent()
    }

    func reportState(_ request: Request, _ context: Context) async throws -> Response {
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

    func state(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, thing) = try resolve(context)
        return JSONResponse.ok(.object(try await states.latest(caller: caller, thing: thing)))
    }

    func reportAlias(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, thing) = try resolve(context)
        let report = try TraitStateReport(
            alias: try context.parameters.require("alias"), body: try await body.object(request, emptyAllowed: true))
        try await states.report(caller: caller, thing: thing, traits: report)
        return JSONResponse.noContent()
    }

    func aliasState(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, thing) = try resolve(context)
        return JSONResponse.ok(
            .object(
                try await states.latest(caller: caller, thing: thing, alias: try context.parameters.require("alias"))))
    }

    func queryAlias(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, thing) = try resolve(context)
        return JSONResponse.ok(
            try await states.query(
                caller: caller, thing: thing, alias: try context.parameters.require("alias"),
                body: try await body.object(request)))
    }

    /// Extension: one alias's history, as `…/states/history` below.
    func aliasHistory(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, thing) = try resolve(context)
        return try await history(request, caller: caller, thing: thing, alias: try context.parameters.require("alias"))
    }

    /// Extension: `GET …/states/history?from=&to=&limit=` (ms, inclusive; oldest first). A
    /// page holds at most `limit` states and about 1 MiB; `complete: false` says to ask again.
    func stateHistory(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, thing) = try resolve(context)
        return try await history(request, caller: caller, thing: thing, alias: nil)
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
        return try JSONResponse.ok(
            encoding: StateHistoryPage(
                states: page.states.map {
                    StateHistoryPage.Entry(
                        recordedAt: $0.recordedAt, state: .object(alias == nil ? $0.listedState : $0.state))
                },
                complete: page.complete))
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
