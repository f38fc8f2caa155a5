import Foundation
import Hummingbird
import TopicGateCore

/// Account links (our extension for device migration): `/api/apps/{appID}/users/{me|id}/links`
/// to link, list and unlink, and `/api/apps/{appID}/links/login` for a new device.
struct LinkController<Context: CallerRequestContext>: RouteTable {
    let links: LinkService
    let body: RequestBody
    let location: ResourceLocation

    static var tag: String { "Device migration" }

    static var routes: [APIRoute<Self>] {
        let link = APISchema.json(
            APISchema.object(
                [
                    "provider": APISchema.string, "externalID": APISchema.string, "secret": APISchema.string,
                    "rotate": APISchema.boolean, "oldSecret": APISchema.string,
                ], required: ["provider", "externalID", "secret"]))
        return [
            .post(
                "users/{user}/links", "Link (provider, external ID, secret)", body: link, success: [200, 201],
                Self.link),
            .get("users/{user}/links", "A user's links", Self.list),
            .delete("users/{user}/links/{provider}/{externalID}", "Unlink", Self.unlink),
            // Its caller is always anonymous: the secret is the credential.
            .post("links/login", "A token for the linked user", on: .login, body: link, Self.login),
        ]
    }

    func link(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let reference = try context.parameters.userReference(appID: caller.appID)
        let link = try AccountLinkRequest(linking: try await body.object(request))
        let outcome = try await links.link(caller: caller, reference: reference, request: link)
        guard outcome.created else { return try JSONResponse.ok(encoding: outcome.link) }
        return try JSONResponse.created(
            encoding: outcome.link, mediaType: "application/json",
            location: location(
                "/api/apps/\(caller.appID.rawValue)/users/\(outcome.link.userID.rawValue)"
                    + "/links/\(outcome.link.provider)/\(Self.percentEncoded(outcome.link.externalID))"))
    }

    func list(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let found = try await links.links(
            caller: caller, reference: try context.parameters.userReference(appID: caller.appID))
        return try JSONResponse.ok(encoding: ListingPage("links", found, next: nil))
    }

    func unlink(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let provider = try context.parameters.require("provider")
        let externalID = try context.parameters.require("externalID")
        try await links.unlink(
            caller: caller, reference: try context.parameters.userReference(appID: caller.appID), provider: provider,
            externalID: externalID.removingPercentEncoding ?? externalID)
        return JSONResponse.noContent()
    }

    func login(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let login = try AccountLinkRequest(login: try await body.object(request))
        return try JSONResponse.ok(
            encoding: try await links.login(app: caller.app, request: login, address: caller.address))
    }

    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/")))
            ?? text
    }
}
