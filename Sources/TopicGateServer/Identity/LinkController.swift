import Foundation
import Hummingbird
import TopicGateCore

/// Account links (our extension for device migration): `/api/apps/{appID}/users/{me|id}/links`
/// to link, list and unlink, and `/api/apps/{appID}/links/login` for a new device.
struct LinkController<Context: CallerRequestContext>: Sendable {
    let links: LinkService
    let body: RequestBody
    let location: ResourceLocation

    func addRoutes(to group: RouterGroup<Context>) {
        group.post("users/:user/links") { request, context in
            let caller = try context.caller
            let reference = try context.parameters.userReference(appID: caller.appID)
            let link = try AccountLinkRequest(linking: try await body.object(request))
            let outcome = try await links.link(caller: caller, reference: reference, request: link)
            guard outcome.created else { return JSONResponse.ok(outcome.link.json) }
            return JSONResponse.created(
                outcome.link.json,
                location: location(
                    "/api/apps/\(caller.appID.rawValue)/users/\(outcome.link.userID.rawValue)"
                        + "/links/\(outcome.link.provider)/\(Self.percentEncoded(outcome.link.externalID))"))
        }
        group.get("users/:user/links") { _, context in
            let caller = try context.caller
            let found = try await links.links(
                caller: caller, reference: try context.parameters.userReference(appID: caller.appID))
            return JSONResponse.ok(["links": .array(found.map(\.json))])
        }
        group.delete("users/:user/links/:provider/:externalID") { _, context in
            let caller = try context.caller
            let provider = try context.parameters.require("provider")
            let externalID = try context.parameters.require("externalID")
            try await links.unlink(
                caller: caller, reference: try context.parameters.userReference(appID: caller.appID),
                provider: provider,
                externalID: externalID.removingPercentEncoding ?? externalID)
            return JSONResponse.noContent()
        }
    }

    /// `POST …/links/login`, on the app's login routes (its caller is always anonymous).
    func addLoginRoutes(to group: RouterGroup<Context>) {
        group.post("links/login") { request, context in
            let caller = try context.caller
            let login = try AccountLinkRequest(login: try await body.object(request))
            return JSONResponse.ok(try await links.login(app: caller.app, request: login, address: caller.address))
        }
    }

    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/")))
            ?? text
    }
}
