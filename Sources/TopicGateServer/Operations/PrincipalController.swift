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
        return JSONResponse.ok([
            "principals": .array(
                found.map { match in
                    var object: [String: JSONValue] = [
                        "principal": .string("\(match.kind.rawValue):\(match.id)"),
                        "kind": .string(match.kind.rawValue), "disabled": .bool(match.disabled),
                    ]
                    if let name = match.name { object["name"] = .string(name) }
                    if let detail = match.detail { object["detail"] = .string(detail) }
                    return .object(object)
                })
        ])
    }

    /// `?topics=false`: without the topics it may use (cheaper, for refreshing its devices).
    func access(_ request: Request, _ context: Context) async throws -> Response {
        let text = try context.parameters.decoded("principal")
        if case .group(let id) = TypedID(parsing: text) {
            return JSONResponse.ok(Self.json(try await inspector.group(caller: try context.caller, id: id)))
        }
        guard let principal = TopicController<Context>.principal(text) else {
            throw KiiError.invalidInput(
                "Name a user (user:ID), a thing (thing:ID) or a group (group:ID).", field: "principal")
        }
        let access = try await inspector.access(
            caller: try context.caller, principal: principal,
            withTopics: request.uri.queryParameters.get("topics") != "false")
        return JSONResponse.ok(Self.json(access))
    }

    /// A topic as the principals pages name it.
    static func json(_ topic: Topic) -> [String: JSONValue] {
        ["scope": .string(topic.scope.description), "topicID": .string(topic.name.rawValue)]
    }

    static func json(_ standing: GroupStanding) -> JSONValue {
        let group = standing.group
        return [
            "principal": .string("group:\(group.id.rawValue)"), "kind": "group", "name": .string(group.name),
            "owner": .string(Principal.user(group.owner).description), "createdAt": group.createdAt.json,
            "members": .array(
                standing.members.map { member in
                    var object: [String: JSONValue] = [
                        "principal": .string(Principal.user(member.id).description),
                        "owner": .bool(member.id == group.owner), "disabled": .bool(member.disabled),
                    ]
                    if let name = member.name { object["name"] = .string(name) }
                    return .object(object)
                }),
            "memberCount": .int(Int64(standing.memberCount)),
            "ownedThings": .array(standing.ownedThings.map { .string($0.rawValue) }),
            "scopeTopics": .array(standing.scopeTopics.map { .object(json($0)) }),
            "namedIn": .array(
                standing.namedIn.map { topic, actions in
                    .object(json(topic).merging(["actions": .array(actions.map { .string($0.rawValue) })]) { $1 })
                }),
            "topicsChecked": .int(Int64(standing.topicsChecked)), "truncated": .bool(standing.truncated),
        ]
    }

    static func json(_ access: PrincipalInspector.Access) -> JSONValue {
        func topics(_ allowed: [(Topic, AccessDecision)]) -> JSONValue {
            .array(
                allowed.map { topic, decision in
                    .object(
                        json(topic).merging([
                            "rule": .string(decision.reasonCode), "reason": .string(decision.description),
                        ]) { $1 })
                })
        }
        var object: [String: JSONValue] = [
            "principal": .string(access.principal.description), "disabled": .bool(access.disabled),
            "kind": .string(access.principal.thingID == nil ? "user" : "thing"),
            "groups": .array(
                access.groups.map { group in
                    [
                        "groupID": .string(group.id.rawValue), "name": .string(group.name),
                        "owner": .bool(group.owner == access.principal.userID),
                    ]
                }),
            "ownedThings": .array(access.ownedThings.map { .string($0.rawValue) }),
            "owners": .array(access.owners.map { .string($0.description) }),
            "endNodes": .array(access.endNodes.map(\.listJSON)), "moreEndNodes": .bool(access.moreEndNodes),
            "installations": .array(
                access.installations.map { installation, status in
                    var entry: [String: JSONValue] = [
                        "installationID": .string(installation.id.rawValue),
                        "deviceType": .string(installation.deviceType), "mqttTopic": .string(installation.mqttTopic),
                        "createdAt": installation.createdAt.json, "development": .bool(installation.development),
                        "online": .bool(status.online),
                    ]
                    if let broker = installation.broker { entry["broker"] = .string(broker) }
                    if let lastSeen = status.lastSeen { entry["lastSeen"] = lastSeen.json }
                    if let revokedAt = installation.revokedAt { entry["revokedAt"] = revokedAt.json }
                    return .object(entry)
                }),
            "maySubscribe": topics(access.maySubscribe), "maySend": topics(access.maySend),
            "layoutPosition": access.layoutPosition.map(JSONValue.string) ?? .null,
            "gateway": access.endNode.map { endNode in
                var gateway: [String: JSONValue] = ["thingID": .string(endNode.gateway.rawValue)]
                if let online = endNode.online { gateway["online"] = .bool(online) }
                if let at = endNode.onlineModifiedAt { gateway["onlineModifiedAt"] = at.json }
                return .object(gateway)
            } ?? .null,
            "topicsChecked": .int(Int64(access.topicsChecked)), "truncated": .bool(access.truncated),
        ]
        if let name = access.name { object["name"] = .string(name) }
        return .object(object)
    }
}
