import Foundation
import Hummingbird
import TopicGateCore

/// Thing-IF triggers under `/thing-if/apps/{appID}/targets/thing:{thingID}/triggers` (create,
/// read, change, enable and disable, delete, list, and the server-code results no command trigger
/// has), and the app's configuration parameters under `/api/apps/{appID}/configuration/parameters`
/// (`allowCreateTaskByPrincipal`).
struct TriggerController<Context: CallerRequestContext>: Sendable {
    let triggers: TriggerService
    let body: RequestBody

    /// Routes under the Thing-IF app group (`/thing-if/apps/{appID}`).
    func addRoutes(to group: RouterGroup<Context>) {
        let target = group.group("targets/:target")
        target.post("triggers") { request, context in
            let (caller, thing) = try resolve(context)
            let trigger = try await triggers.create(caller: caller, thing: thing, body: try await body.object(request))
            return JSONResponse.created(.object(["triggerID": .string(trigger.id.rawValue)]))
        }
        target.get("triggers") { request, context in
            let (caller, thing) = try resolve(context)
            let query = request.uri.queryParameters
            let limit = try ThingIFController<Context>.nonNegative(query.get("bestEffortLimit"), "bestEffortLimit")
            let page = try await triggers.list(
                caller: caller, thing: thing, limit: limit.flatMap { $0 > 0 ? Int(clamping: $0) : nil },
                after: query.get("paginationKey"))
            var answer: [String: JSONValue] = ["triggers": .array(page.triggers.map(\.json))]
            if let next = page.next { answer["nextPaginationKey"] = .string(next) }
            return JSONResponse.ok(.object(answer))
        }
        target.get("triggers/:trigger") { _, context in
            let (caller, thing) = try resolve(context)
            return JSONResponse.ok(try await triggers.read(caller: caller, thing: thing, id: try id(context)).json)
        }
        target.patch("triggers/:trigger") { request, context in
            let (caller, thing) = try resolve(context)
            try await triggers.change(
                caller: caller, thing: thing, id: try id(context), body: try await body.object(request))
            return JSONResponse.noContent()
        }
        for (action, enabled) in [("enable", true), ("disable", false)] {
            target.put(RouterPath("triggers/:trigger/\(action)")) { _, context in
                let (caller, thing) = try resolve(context)
                try await triggers.setEnabled(caller: caller, thing: thing, id: try id(context), enabled: enabled)
                return JSONResponse.noContent()
            }
        }
        target.delete("triggers/:trigger") { _, context in
            let (caller, thing) = try resolve(context)
            try await triggers.delete(caller: caller, thing: thing, id: try id(context))
            return JSONResponse.noContent()
        }
        // A command trigger runs no server code: its results are always none.
        target.get("triggers/:trigger/results/server-code") { _, context in
            let (caller, thing) = try resolve(context)
            _ = try await triggers.read(caller: caller, thing: thing, id: try id(context))
            return JSONResponse.ok(["triggerServerCodeResults": []])
        }
    }

    /// Routes under `/api/apps/{appID}`.
    func addCloudRoutes(to group: RouterGroup<Context>) {
        group.put("configuration/parameters/:name") { request, context in
            let caller = try context.caller
            let text = String(decoding: try await body.bytes(request), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            // A JSON string ("true") is taken as its text.
            let value = (try? JSONReader.value(Array(text.utf8)))?.stringValue ?? text
            try await triggers.setParameter(caller: caller, name: try context.parameters.require("name"), value: value)
            return JSONResponse.noContent()
        }
        group.get("configuration/parameters/:name") { _, context in
            let caller = try context.caller
            let value = try await triggers.parameter(caller: caller, name: try context.parameters.require("name"))
            return JSONResponse.ok([try context.parameters.require("name"): .string(value)])
        }
    }

    private func resolve(_ context: Context) throws -> (Caller, ThingReference) {
        let caller = try context.caller
        return (caller, try context.parameters.target(appID: caller.appID))
    }

    private func id(_ context: Context) throws -> TriggerID {
        TriggerID(try context.parameters.require("trigger"))
    }
}
