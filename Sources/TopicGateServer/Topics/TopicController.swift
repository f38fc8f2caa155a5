import Hummingbird
import TopicGateCore

/// The topic routes, declared once per scope: `/api/apps/{app}` + `` (app scope),
/// `/groups/{group}`, `/users/{user}`, `/things/{thing}` + `/topics…`; each handler reads its
/// scope from the path's parameters.
struct TopicController<Context: CallerRequestContext>: RouteTable {
    let topics: TopicService
    let body: RequestBody

    static var tag: String { "Topics" }

    /// The four scopes a topic lives in, as path prefixes under the app.
    static var scopes: [String] { ["", "groups/{group}/", "users/{user}/", "things/{thing}/"] }

    static var routes: [APIRoute<Self>] {
        [
            .get(
                "topic-search", "Topics of every scope by name, scope owner or creator (admin)", who: .admin,
                query: [("q", APISchema.string), ("limit", APISchema.integer)], Self.search)
        ] + scopes.flatMap(routes(scope:))
    }

    static func routes(scope: String) -> [APIRoute<Self>] {
        let topic = scope + "topics/{topic}"
        let entry = topic + "/acl/{action}/{subject}"
        let action = APISchema.oneOf(ACLAction.allCases.map(\.rawValue))
        var routes: [APIRoute<Self>] = [
            .get(scope + "topics", "The scope's topics", query: [("paginationKey", APISchema.string)], Self.list),
            .put(topic, "Create a topic", Self.create),
            .head(topic, "Does the topic exist?", Self.exists),
            .delete(topic, "Delete a topic", Self.delete),
            .get(
                topic + "/acl", "The topic's ACL (detailed=true: with removability)", tag: "Topic ACLs",
                query: [("detailed", APISchema.boolean)], Self.acl),
            .post(
                topic + "/acl", "Grant and revoke entries, all or nothing (dryRun=true: the entries after, unwritten)",
                tag: "Topic ACLs", query: [("dryRun", APISchema.boolean)],
                body: APISchema.json(
                    APISchema.object(["changes": APISchema.array(of: APISchema.anyObject)], required: ["changes"])),
                Self.changeACL),
            .get(topic + "/acl/{action}", "The subjects of one action", tag: "Topic ACLs", Self.subjects),
            .get(entry, "Is this entry granted?", tag: "Topic ACLs", Self.entryGranted),
            .put(entry, "Grant an entry", tag: "Topic ACLs", Self.changeEntry(.grant)),
            .delete(entry, "Revoke an entry", tag: "Topic ACLs", Self.changeEntry(.revoke)),
            .get(
                topic + "/acl-audit", "Who changed the ACL, when: oldest first, a page at a time (kept 90 days)",
                tag: "Topic ACLs", query: APISchema.paging, Self.audit),
            .get(
                topic + "/acl-explain", "Why a principal may or may not act", tag: "Topic ACLs",
                query: [("principal", APISchema.string), ("action", action)], Self.explain),
            .get(
                topic + "/acl-who-can",
                "Who may subscribe or send: the principals that pass, and the rules that admit everyone (admin)",
                tag: "Topic ACLs", who: .admin, query: [("action", action)], Self.whoCan),
            .get(
                topic + "/push/subscriptions", "The subscribed users and things, and whether each still receives sends",
                tag: "Push", Self.subscribers),
            .post(
                topic + "/push/subscriptions/things", "The calling thing subscribes", tag: "Push", success: [204],
                Self.subscribeCallingThing),
            .post(
                topic + "/push/messages",
                "Send a message to the topic's subscribers (trace=true: the admin's test push, traced to each device)",
                tag: "Push", query: [("trace", APISchema.boolean)], body: pushMessage, success: [201], Self.send),
        ]
        for kind in SubscriberKind.allCases {
            let subscription = topic + "/push/subscriptions/\(kind.rawValue)/{subscriber}"
            routes += [
                .put(subscription, "Subscribe", tag: "Push", Self.subscription(kind, TopicService.subscribe)),
                .get(
                    subscription, "Is it subscribed?", tag: "Push", success: [204],
                    Self.subscription(kind, TopicService.checkSubscription)),
                .head(
                    subscription, "Is it subscribed?", tag: "Push",
                    Self.subscription(kind, TopicService.checkSubscription)),
                .delete(subscription, "Unsubscribe", tag: "Push", Self.subscription(kind, TopicService.unsubscribe)),
            ]
        }
        return routes
    }

    static var pushMessage: APIOperation.Body {
        APISchema.json(
            APISchema.object(
                [
                    "data": APISchema.anyObject,
                    "mqtt": APISchema.object(["enabled": APISchema.boolean, "data": APISchema.anyObject]),
                    "gcm": APISchema.anyObject, "apns": APISchema.anyObject, "sendSender": APISchema.boolean,
                    "sendWhen": APISchema.boolean, "sendTopicID": APISchema.boolean,
                    "sendObjectScope": APISchema.boolean, "sendAppID": APISchema.boolean,
                    "sendOrigin": APISchema.boolean,
                ], required: ["data"]), "application/vnd.kii.SendPushMessageRequest+json")
    }

    /// The caller, the scope the path names and the topic name of a request.
    func target(_ context: Context) throws -> (Caller, TopicScopeReference, String) {
        let caller = try context.caller
        let parameters = context.parameters
        let scope: TopicScopeReference =
            if parameters.get("group") != nil {
                .group(try parameters.groupID())
            } else if parameters.get("user") != nil {
                .user(try parameters.userReference(appID: caller.appID))
            } else if parameters.get("thing") != nil {
                .thing(try parameters.thingReference(appID: caller.appID))
            } else {
                .app
            }
        return (caller, scope, parameters.get("topic") ?? "")
    }

    /// Across the scopes (an extension for operators): `?q=` and `?limit=` (1 to 1000, 100).
    func search(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let found = try await topics.search(
            caller: caller, text: request.uri.queryParameters.get("q") ?? "", limit: request.limit(default: 100))
        let owners = found.compactMap(\.scope.principal)
        let names = try await topics.names(appID: caller.appID, of: Array(Set(owners + found.map(\.creator))))
        return try JSONResponse.ok(encoding: TopicSearchResults(found, names: names))
    }

    func list(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, reference, _) = try target(context)
        let (page, next) = try await topics.list(
            caller: caller, scope: reference, after: request.uri.queryParameters.get("paginationKey"))
        return try JSONResponse.ok(
            encoding: TopicPage(page, next: next), mediaType: "application/vnd.kii.TopicsRetrievalResponse+json")
    }

    func create(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, reference, name) = try target(context)
        try await topics.create(caller: caller, scope: reference, name: name)
        return JSONResponse.noContent()
    }

    func exists(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, reference, name) = try target(context)
        return Response(
            status: try await topics.exists(caller: caller, scope: reference, name: name) ? .noContent : .notFound)
    }

    func delete(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, reference, name) = try target(context)
        try await topics.delete(caller: caller, scope: reference, name: name)
        return JSONResponse.noContent()
    }

    func acl(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, reference, name) = try target(context)
        let loaded = try await topics.entries(caller: caller, scope: reference, name: name)
        if request.uri.queryParameters.get("detailed") == "true" {
            // Names for the admin (the console): a group's name is not every manager's to read.
            let names =
                caller.principal == .admin
                ? try await topics.names(appID: caller.appID, of: Array(Set(loaded.entries.map(\.subject)))) : [:]
            return try JSONResponse.ok(encoding: DetailedACL(loaded, names: names))
        }
        return try JSONResponse.ok(
            encoding: ACLRetrieval(loaded), mediaType: "application/vnd.kii.ACLRetrievalResponse+json")
    }

    func changeACL(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, reference, name) = try target(context)
        let batch = try await body.decode(ACLChangesRequest.self, from: request)
        // `?dryRun=true`: the entries the batch would leave, checked the same way, unwritten.
        if request.uri.queryParameters.get("dryRun") == "true" {
            let after = try await topics.preview(caller: caller, scope: reference, name: name, changes: batch.changes)
            return try JSONResponse.ok(encoding: ACLEntryList(after, dryRun: true))
        }
        let after = try await topics.change(caller: caller, scope: reference, name: name, changes: batch.changes)
        return try JSONResponse.ok(encoding: ACLEntryList(after, dryRun: false))
    }

    func subjects(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, reference, name) = try target(context)
        let action = try Self.action(context.parameters)
        let loaded = try await topics.entries(caller: caller, scope: reference, name: name)
        return try JSONResponse.ok(encoding: loaded.entries.filter { $0.action == action }.map(\.subject))
    }

    func entryGranted(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, reference, name) = try target(context)
        let entry = try Self.entry(context.parameters)
        let loaded = try await topics.entries(caller: caller, scope: reference, name: name)
        guard loaded.entries.contains(where: { $0.matches(entry) }) else {
            throw KiiError(
                .aclNotFound, "There is no entry \(entry).", context: ["subject": .string(entry.subject.description)])
        }
        return try JSONResponse.ok(
            encoding: entry.subject, mediaType: "application/vnd.kii.ACLSubjectRetrievalResponse+json")
    }

    /// Grants or revokes the entry the path names.
    static func changeEntry(_ kind: ACLChange.Kind) -> APIRoute<Self>.Handler {
        { controller in
            { _, context in
                let (caller, reference, name) = try controller.target(context)
                let change = ACLChange(kind, try Self.entry(context.parameters))
                _ = try await controller.topics.change(caller: caller, scope: reference, name: name, changes: [change])
                return JSONResponse.noContent()
            }
        }
    }

    func audit(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, reference, name) = try target(context)
        let query = request.uri.queryParameters
        let limit = try Self.auditLimit(query.get("limit"))
        let page = try await topics.audit(
            caller: caller, scope: reference, name: name, after: try Self.auditKey(query.get("paginationKey")),
            limit: limit)
        return try JSONResponse.ok(encoding: ListingPage("records", page.map { ($0.key, $0.record) }, limit: limit))
    }

    func explain(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, reference, name) = try target(context)
        let query = request.uri.queryParameters
        guard let principalText = query.get("principal"), let principal = Self.principal(principalText) else {
            throw KiiError.invalidInput(
                "Name the principal: ?principal=user:ID, thing:ID, admin or anonymous.", field: "principal")
        }
        let action = try Self.queryAction(request)
        let (found, decision) = try await topics.explain(
            caller: caller, scope: reference, name: name, principal: principal, action: action)
        return try JSONResponse.ok(
            encoding: ACLExplanation(topic: found, principal: principal, action: action, decision: decision))
    }

    func whoCan(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, reference, name) = try target(context)
        let action = try Self.queryAction(request)
        let admitted = try await topics.admitted(caller: caller, scope: reference, name: name, action: action)
        let names = try await topics.names(appID: caller.appID, of: admitted.decisions.map(\.principal))
        return try JSONResponse.ok(encoding: ACLAdmissions(action: action, admitted: admitted, names: names))
    }

    func subscribers(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, reference, name) = try target(context)
        let subscribed = try await topics.subscribers(caller: caller, scope: reference, name: name)
        let names = try await topics.names(appID: caller.appID, of: subscribed.map(\.0.principal))
        return try JSONResponse.ok(
            encoding: TopicSubscriberList(
                subscribers: subscribed.map { NamedPrincipal($0, receives: $1, names: names) }))
    }

    /// The users or the things of `/push/subscriptions/{kind}/{subscriber}`.
    enum SubscriberKind: String, CaseIterable, Sendable {
        case users, things
    }

    /// Runs `operation` of the topic service on the subscription the path names.
    static func subscription(
        _ kind: SubscriberKind,
        _ operation:
            @escaping @Sendable (TopicService) ->
            @Sendable (Caller, TopicScopeReference, String, Subscriber)
            async throws -> Void
    ) -> APIRoute<Self>.Handler {
        { controller in
            { _, context in
                let (caller, reference, name) = try controller.target(context)
                let id = try context.parameters.require("subscriber")
                guard IDSyntax.isWellFormed(id) else {
                    throw KiiError(.pushSubscriptionNotFound, "No such subscriber.", context: ["subject": .string(id)])
                }
                let subscriber: Subscriber = kind == .users ? .user(UserID(id)) : .thing(ThingID(id))
                try await operation(controller.topics)(caller, reference, name, subscriber)
                return JSONResponse.noContent()
            }
        }
    }

    func subscribeCallingThing(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, reference, name) = try target(context)
        guard let thing = caller.principal.thingID else {
            throw caller.denied("subscribe as a thing without thing credentials")
        }
        try await topics.subscribe(caller: caller, scope: reference, name: name, subscriber: .thing(thing))
        return JSONResponse.noContent()
    }

    /// Sending. `?trace=true` (the admin's test push): each device's outcome is recorded, read
    /// back from `/push/messages/{id}/deliveries`.
    func send(_ request: Request, _ context: Context) async throws -> Response {
        let (caller, reference, name) = try target(context)
        let message = try await body.decode(PushMessageRequest.self, from: request)
        let traced = request.uri.queryParameters.get("trace") == "true"
        let id = try await topics.send(caller: caller, scope: reference, name: name, request: message, traced: traced)
        return try JSONResponse.make(
            status: .created, encoding: PushMessageCreation(appID: caller.appID, id: id, traced: traced),
            mediaType: "application/vnd.kii.SendPushMessageResponse+json")
    }

    static func action(_ parameters: Parameters) throws -> ACLAction {
        let text = try parameters.require("action")
        guard let action = ACLAction(rawValue: text.uppercased()) else {
            throw KiiError(
                .aclNotFound, "Topic ACLs have SUBSCRIBE_TO_TOPIC and SEND_MESSAGE_TO_TOPIC.",
                context: ["action": .string(text)])
        }
        return action
    }

    /// `?action=SUBSCRIBE_TO_TOPIC` or `SEND_MESSAGE_TO_TOPIC`.
    static func queryAction(_ request: Request) throws -> ACLAction {
        guard let text = request.uri.queryParameters.get("action"), let action = ACLAction(rawValue: text) else {
            throw KiiError.invalidInput(
                "Name the action: ?action=SUBSCRIBE_TO_TOPIC or SEND_MESSAGE_TO_TOPIC.", field: "action")
        }
        return action
    }

    static func entry(_ parameters: Parameters) throws -> ACLEntry {
        let action = try action(parameters)
        let text = try parameters.require("subject")
        guard let subject = ACLSubject(parsing: text) else {
            throw KiiError.invalidInput(
                "A subject is UserID:x, GroupID:x, ThingID:x, UserID:ANY_AUTHENTICATED_USER or UserID:ANONYMOUS_USER.",
                field: "subject")
        }
        return ACLEntry(action, subject)
    }

    static func principal(_ text: String) -> Principal? {
        switch text.lowercased() {
        case "admin": return .admin
        case "anonymous": return .anonymous
        default:
            switch TypedID(parsing: text) {
            case .user(let id): return .user(id)
            case .thing(let id): return .thing(id)
            default: return nil
            }
        }
    }

    /// `limit` of an audit page: 1 to 1000, 1000 when not given.
    static func auditLimit(_ text: String?) throws -> Int {
        guard let text else { return 1_000 }
        guard let limit = Int(text), (1...1_000).contains(limit) else {
            throw KiiError.invalidInput("'limit' is 1 to 1000.", field: "limit")
        }
        return limit
    }

    /// `paginationKey` of an audit page: nil (the first page) when not given; refused when it is
    /// not a key a page gave.
    static func auditKey(_ text: String?) throws(KiiError) -> Int64? {
        guard let text else { return nil }
        guard let key = Int64(text), key > 0 else {
            throw KiiError.invalidInput("'paginationKey' is a key of a previous page.", field: "paginationKey")
        }
        return key
    }
}
