import Hummingbird
import TopicGateCore
import TopicGateStore

/// `GET /principal-search?q=&limit=` and `GET /principals/{user:ID|thing:ID|group:ID}/access`:
/// the console's principals pages (admin only).
struct PrincipalController<Context: CallerRequestContext>: RouteTable {
    let inspector: PrincipalInspector

    static var tag: String { "Operations" }

    static var routes: [APIRoute<Self>] {
        [
            .get(
                "principal-search",
                "Users, groups and things by ID, login name, email, phone, name or vendor thing ID (admin)",
                who: .admin, query: [("q", APISchema.string), ("limit", APISchema.integer)], Self.search),
            .get(
                "principals/{principal}/access",
                "A user's or thing's groups, things or owners, devices and usable topics; a group's members, "
                    + "things and topics (admin)", who: .admin, query: [("topics", APISchema.boolean)], Self.access),
        ]
    }

    func search(_ request: Request, _ context: Context) async throws -> Response {
        let found = try await inspector.search(
            caller: try context.caller, text: request.uri.queryParameters.get("q") ?? "",
            limit: request.limit(default: 50))
        return try JSONResponse.ok(encoding: PrincipalMatches(found))
    }

    /// `?topics=false`: without the topics it may use (cheaper, for refreshing its devices).
    func access(_ request: Request, _ context: Context) async throws -> Response {
        let text = try context.parameters.decoded("principal")
        if case .group(let id) = TypedID(parsing: text) {
            return try JSONResponse.ok(
                encoding: GroupStandingReport(try await inspector.group(caller: try context.caller, id: id)))
        }
        guard let principal = TopicController<Context>.principal(text) else {
            throw KiiError.invalidInput(
                "Name a user (user:ID), a thing (thing:ID) or a group (group:ID).", field: "principal")
        }
        let access = try await inspector.access(
            caller: try context.caller, principal: principal,
            withTopics: request.uri.queryParameters.get("topics") != "false")
        return try JSONResponse.ok(encoding: PrincipalAccessReport(access))
    }
}
