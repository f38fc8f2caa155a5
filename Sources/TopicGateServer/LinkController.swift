import Foundation
import HTTPTypes
import Hummingbird
import TopicGateCore

/// Account links (our extension for device migration): `/api/apps/{appID}/users/{me|id}/links`
/// to link, list and unlink, and `/api/apps/{appID}/links/login` for a new device.
struct LinkController<Context: RequestContext>: Sendable {
    let environment: ServerEnvironment

    func addRoutes(to group: RouterGroup<Context>) {
        group.post("users/:user/links") { request, context in
            let appID = try context.parameters.appID()
            let caller = try await environment.authenticator.caller(request, context, appID: appID)
            let body = try await environment.body.object(request)
            let outcome = try await environment.links.link(
                caller: caller, reference: try context.parameters.userReference(appID: appID), body: body,
                address: environment.clientAddress(request, context))
            guard outcome.created else { return JSONResponse.ok(outcome.link.json) }
            return JSONResponse.created(
                outcome.link.json,
                location: environment.location(
                    "/api/apps/\(appID)/users/\(outcome.link.userID.rawValue)/links/\(outcome.link.provider)/"
                        + Self.percentEncoded(outcome.link.externalID)))
        }
        group.get("users/:user/links") { request, context in
            let appID = try context.parameters.appID()
            let caller = try await environment.authenticator.caller(request, context, appID: appID)
            let links = try await environment.links.links(
                caller: caller, reference: try context.parameters.userReference(appID: appID))
            return JSONResponse.ok(["links": .array(links.map(\.json))])
        }
        group.delete("users/:user/links/:provider/:externalID") { request, context in
            let appID = try context.parameters.appID()
            let caller = try await environment.authenticator.caller(request, context, appID: appID)
            let provider = try context.parameters.require("provider")
            let externalID = try context.parameters.require("externalID")
            try await environment.links.unlink(
                caller: caller, reference: try context.parameters.userReference(appID: appID), provider: provider,
                externalID: externalID.removingPercentEncoding ?? externalID,
                address: environment.clientAddress(request, context))
            return JSONResponse.noContent()
        }
        group.post("links/login") { request, context in
            let app = try await environment.authenticator.app(try context.parameters.appID())
            let body = try await environment.body.object(request)
            return JSONResponse.ok(
                try await environment.links.login(app: app, body: body, address: environment.clientAddress(request, context)))
        }
    }

    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? text
    }
}
