import Foundation
import Hummingbird
import TopicGateCore

/// Thing-IF triggers under `/thing-if/apps/{appID}/targets/thing:{thingID}/triggers` (create,
/// read, change, enable and disable, delete, list, and the server-code results no command trigger
/// has), and the app's configuration parameters under `/api/apps/{appID}/configuration/parameters`
/// (`allowCreateTaskByPrincipal`).
struct TriggerController<Context: CallerRequestContext>: RouteTable {
    let triggers: TriggerService
    let body: RequestBody

    static var tag: String { "Thing-IF" }
    static var root: APIRoot { .thingIF }

    static var routes: [APIRoute<Self>] {
        let members: [String: JSONValue] = [
            "triggersWhat": APISchema.oneOf(["COMMAND"]), "predicate": APISchema.anyObject,
            "command": APISchema.anyObject, "title": APISchema.string, "description": APISchema.string,
            "metadata": APISchema.anyObject,
        ]
        let triggers = "targets/{target}/triggers"
        let trigger = triggers + "/{trigger}"
        return [
            .put(
                "configuration/parameters/{name}",
                "Set an app configuration parameter (admin): allowCreateTaskByPrincipal", on: .app, tag: "Operations",
                who: .admin, body: APIOperation.Body(mediaTypes: ["text/plain"], schema: APISchema.string),
                Self.setParameter),
            .get(
                "configuration/parameters/{name}", "An app configuration parameter (admin)", on: .app,
                tag: "Operations",
                who: .admin, Self.parameter),
            .post(
                triggers,
                "Create a trigger: a command sent when the thing's states satisfy a condition, or on a schedule",
                body: APISchema.json(APISchema.object(members, required: ["predicate", "command"])),
                success: [201], Self.create),
            .get(
                triggers, "The thing's triggers, a page at a time", query: APISchema.bestEffortPaging,
                Self.list),
            .get(trigger, "A trigger", Self.read),
            .patch(
                trigger, "Change a trigger (the members sent replace theirs)",
                body: APISchema.json(APISchema.object(members)), Self.change),
            .put(trigger + "/enable", "Enable a trigger", Self.setEnabled(true)),
            .put(trigger + "/disable", "Disable a trigger", Self.setEnabled(false)),
            .delete(trigger, "Delete a trigger", Self.delete),
            .get(
                trigger + "/results/server-code", "A trigger's server-code results (a command trigger has none)",
                query: APISchema.bestEffortPaging, Self.serverCodeResults),
        ]
    }

    func create(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, thing) = try resolve(context)
        let trigger = try await triggers.create(caller: caller, thing: thing, body: try await body.object(request))
        return try JSONResponse.make(status: .created, encoding: TriggerCreation(triggerID: trigger.id.rawValue))
    }

    func list(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, thing) = try resolve(context)
        let query = request.uri.queryParameters
        let limit = try ThingIFController<Context>.nonNegative(query.get("bestEffortLimit"), "bestEffortLimit")
        let page = try await triggers.list(
            caller: caller, thing: thing, limit: limit.flatMap { $0 > 0 ? Int(clamping: $0) : nil },
            after: query.get("paginationKey"))
        return try JSONResponse.ok(encoding: ListingPage("triggers", page.triggers, next: page.next))
    }

    func read(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, thing) = try resolve(context)
        return try JSONResponse.ok(encoding: try await triggers.read(caller: caller, thing: thing, id: try id(context)))
    }

    func change(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, thing) = try resolve(context)
        try await triggers.change(
            caller: caller, thing: thing, id: try id(context), body: try await body.object(request))
        return JSONResponse.noContent()
    }

    static func setEnabled(_ enabled: Bool) -> APIRoute<Self>.Handler {
        { controller in
            { _, context in
                let (caller, thing) = try controller.resolve(context)
                try await controller.triggers.setEnabled(
                    caller: caller, thing: thing, id: try controller.id(context), enabled: enabled)
                return JSONResponse.noContent()
            }
        }
    }

    func delete(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, thing) = try resolve(context)
        try await triggers.delete(caller: caller, thing: thing, id: try id(context))
        return JSONResponse.noContent()
    }

    /// A command trigger runs no server code: its results are always none.
    func serverCodeResults(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, thing) = try resolve(context)
        _ = try await triggers.read(caller: caller, thing: thing, id: try id(context))
        return try JSONResponse.ok(encoding: ListingPage<JSONValue>("triggerServerCodeResults", [], next: nil))
    }

    func setParameter(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let text = String(decoding: try await body.bytes(request), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // A JSON string ("true") is taken as its text.
        let value = (try? JSONReader.value(Array(text.utf8)))?.stringValue ?? text
        try await triggers.setParameter(caller: caller, name: try context.parameters.require("name"), value: value)
        return JSONResponse.noContent()
    }

    func parameter(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let value = try await triggers.parameter(caller: caller, name: try context.parameters.require("name"))
        return try JSONResponse.ok(encoding: SingleMember(try context.parameters.require("name"), value))
    }

    private func resolve(_ context: Context) throws -> (Caller, ThingReference) {
        let caller = try context.caller
        return (caller, try context.parameters.target(appID: caller.appID))
    }

    private func id(_ context: Context) throws -> TriggerID {
        TriggerID(try context.parameters.require("trigger"))
    }
}
