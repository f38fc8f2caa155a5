import TopicGateCore

/// Every operation the router serves, for the OpenAPI document (`GET /openapi.json`). A test
/// checks that the router and this list name the same methods and paths.
enum APICatalogue {
    typealias Op = APIOperation

    static let app = "/api/apps/{appID}"
    static let thingIF = "/thing-if/apps/{appID}"
    /// Who may call an API route: it authenticates whatever it is given, then decides.
    static let anyone: [Op.Credential] = [.bearer, .basic, .none]
    /// The app's admin: its token, or its client ID and secret.
    static let admin: [Op.Credential] = [.bearer, .basic]

    // MARK: Schemas

    static func object(_ properties: [String: JSONValue], required: [String] = []) -> JSONValue {
        var schema: [String: JSONValue] = ["type": "object", "properties": .object(properties)]
        if !required.isEmpty { schema["required"] = .array(required.map { .string($0) }) }
        return .object(schema)
    }

    static let string: JSONValue = ["type": "string"]
    static let boolean: JSONValue = ["type": "boolean"]
    static let integer: JSONValue = ["type": "integer"]
    static let anyObject: JSONValue = ["type": "object"]
    /// ebisu sends some booleans as strings.
    static let flag: JSONValue = ["type": ["boolean", "string"]]

    static func json(_ schema: JSONValue, _ mediaTypes: String..., required: Bool = true) -> Op.Body {
        Op.Body(mediaTypes: mediaTypes + ["application/json"], schema: schema, required: required)
    }

    /// A trigger's members, as created and changed.
    static let triggerMembers: [String: JSONValue] = [
        "triggersWhat": ["type": "string", "enum": ["COMMAND"]], "predicate": anyObject, "command": anyObject,
        "title": string, "description": string, "metadata": anyObject,
    ]

    static let tokenRequest = json(
        object([
            "grant_type": ["type": "string", "enum": ["password", "client_credentials"]], "username": string,
            "password": string, "client_id": string, "client_secret": string, "expiresAt": integer,
        ]), "application/vnd.kii.OauthTokenRequest+json")

    static let userFields = object([
        "loginName": string, "emailAddress": string, "phoneNumber": string, "password": string, "displayName": string,
        "country": string, "locale": string,
    ])

    static let thingFields = object(
        [
            "_vendorThingID": string, "_password": string, "_thingType": string, "_vendor": string,
            "_firmwareVersion": string,
            "_layoutPosition": ["type": "string", "enum": ["END_NODE", "STANDALONE", "GATEWAY"]],
        ], required: ["_vendorThingID", "_password"])

    static let pushMessage = json(
        object(
            [
                "data": anyObject, "mqtt": object(["enabled": boolean, "data": anyObject]), "gcm": anyObject,
                "apns": anyObject, "sendSender": boolean, "sendWhen": boolean, "sendTopicID": boolean,
                "sendObjectScope": boolean, "sendAppID": boolean, "sendOrigin": boolean,
            ], required: ["data"]), "application/vnd.kii.SendPushMessageRequest+json")

    static let command = json(
        object(
            [
                "actions": ["type": "array", "items": anyObject], "issuer": string, "title": string,
                "description": string, "metadata": anyObject, "schema": string, "schemaVersion": integer,
            ], required: ["actions", "issuer"]), "application/vnd.kii.CommandCreationRequest+json")

    static let actionSchema: JSONValue = ["type": "string", "enum": ["SUBSCRIBE_TO_TOPIC", "SEND_MESSAGE_TO_TOPIC"]]

    static let paging: [(name: String, schema: JSONValue)] = [("limit", integer), ("paginationKey", string)]

    // MARK: Operations

    static var operations: [Op] {
        service + identity + links + things + gateways + installations + thingInterface
    }

    static var service: [Op] {
        [
            Op(
                method: "get", path: "/health", summary: "The process answers", tag: "Operations", credentials: [.none],
                success: [200]),
            Op(
                method: "get", path: "/ready", summary: "The database answers and the broker is connected",
                tag: "Operations", credentials: [.none], success: [200]),
            Op(
                method: "get", path: "/metrics", summary: "Prometheus metrics", tag: "Operations", credentials: [.none],
                success: [200], successMediaType: "text/plain"),
            Op(
                method: "get", path: "/openapi.json", summary: "This document", tag: "Operations", credentials: [.none],
                success: [200]),
            Op(
                method: "get", path: "/console", summary: "The operator console (HTML)", tag: "Console",
                credentials: [.none], success: [200], successMediaType: "text/html"),
            Op(
                method: "get", path: "/console/{file}", summary: "A file of the operator console (CSS, JavaScript)",
                tag: "Console", credentials: [.none], success: [200], successMediaType: "text/javascript"),
            Op(
                method: "get", path: app + "/overview",
                summary: "Counts of the app, outbox depth, dead letters and this gateway's totals (admin)",
                tag: "Operations", credentials: admin, success: [200]),
            Op(
                method: "get", path: app + "/principal-search",
                summary: "Users, groups and things by ID, login name, email, phone, name or vendor thing ID (admin)",
                tag: "Operations", credentials: admin, query: [("q", string), ("limit", integer)], success: [200]),
            Op(
                method: "get", path: app + "/principals/{principal}/access",
                summary:
                    "A user's or thing's groups, things or owners, devices and usable topics; a group's members, "
                    + "things and topics (admin)",
                tag: "Operations", credentials: admin, query: [("topics", boolean)], success: [200]),
            Op(
                method: "get", path: app + "/security-audit", summary: "The security audit trail, newest first (admin)",
                tag: "Operations", credentials: admin, query: paging, success: [200]),
            Op(
                method: "put", path: app + "/configuration/parameters/{name}",
                summary: "Set an app configuration parameter (admin): allowCreateTaskByPrincipal", tag: "Operations",
                credentials: admin,
                body: Op.Body(mediaTypes: ["text/plain"], schema: string, required: true), success: [204]),
            Op(
                method: "get", path: app + "/configuration/parameters/{name}",
                summary: "An app configuration parameter (admin)", tag: "Operations", credentials: admin,
                success: [200]),
            Op(
                method: "get", path: app + "/dead-letters", summary: "Pushes that could not be delivered (admin)",
                tag: "Operations", credentials: admin, query: paging, success: [200]),
            Op(
                method: "get", path: app + "/push/messages/{message}/deliveries",
                summary:
                    "How far a traced push got toward each device: pending, acknowledged, offline or failed (admin)",
                tag: "Operations", credentials: admin, success: [200]),
            Op(
                method: "post", path: app + "/pseudo-user-cleanup", summary: "Remove idle pseudo users (admin)",
                tag: "Operations", credentials: admin,
                body: json(object(["idleDays": integer, "dryRun": boolean], required: ["idleDays"])), success: [200]),
        ]
    }

    static var identity: [Op] {
        [
            Op(
                method: "post", path: "/api/oauth2/token", summary: "Token for a user, a thing, the admin or anonymous",
                tag: "Identity", credentials: [.none], body: tokenRequest, success: [200]),
            Op(
                method: "post", path: app + "/oauth2/token",
                summary: "Token for a user, a thing, the admin or anonymous",
                tag: "Identity", credentials: [.none], body: tokenRequest, success: [200]),
            Op(
                method: "post", path: app + "/users", summary: "A pseudo user, or a user with a password",
                tag: "Identity",
                credentials: anyone,
                body: json(
                    userFields, "application/vnd.kii.RegistrationAndAuthorizationRequest+json",
                    "application/vnd.kii.RegistrationRequest+json", required: false), success: [201]),
            Op(
                method: "post", path: app + "/users/query", summary: "Query users with Kii's clauses (admin)",
                tag: "Identity", credentials: admin,
                body: json(query("userQuery"), "application/vnd.kii.UserQueryRequest+json"), success: [200]),
            Op(
                method: "get", path: app + "/users/{user}", summary: "A user (me, an ID, LOGIN_NAME:, EMAIL:, PHONE:)",
                tag: "Identity", credentials: anyone, success: [200]),
            Op(
                method: "post", path: app + "/users/{user}",
                summary: "Update a user; with a password, upgrade a pseudo user",
                tag: "Identity", credentials: anyone,
                body: json(userFields, "application/vnd.kii.UserUpdateRequest+json"),
                success: [200]),
            Op(
                method: "delete", path: app + "/users/{user}", summary: "Delete a user", tag: "Identity",
                credentials: anyone, success: [204]),
            Op(
                method: "put", path: app + "/users/{user}/password", summary: "Change a password", tag: "Identity",
                credentials: anyone,
                body: json(
                    object(["oldPassword": string, "newPassword": string], required: ["newPassword"]),
                    "application/vnd.kii.ChangePasswordRequest+json"), success: [204]),
            Op(
                method: "put", path: app + "/users/{user}/status", summary: "Disable or enable a user (admin)",
                tag: "Identity", credentials: admin, body: json(object(["disabled": boolean], required: ["disabled"])),
                success: [204]),
            Op(
                method: "post", path: app + "/oauth2/revoke",
                summary: "Revoke a token (RFC 7009): the caller's own, or any of the app's for the admin",
                tag: "Identity", credentials: anyone,
                body: json(object(["token": string, "token_type_hint": string], required: ["token"])),
                success: [200]),
            Op(
                method: "delete", path: app + "/users/{user}/tokens",
                summary: "Revoke every token of a user, and the devices installed with them (admin)", tag: "Identity",
                credentials: admin, success: [204]),
        ]
    }

    static var links: [Op] {
        let link = object(
            ["provider": string, "externalID": string, "secret": string, "rotate": boolean, "oldSecret": string],
            required: ["provider", "externalID", "secret"])
        return [
            Op(
                method: "post", path: app + "/users/{user}/links", summary: "Link (provider, external ID, secret)",
                tag: "Device migration", credentials: anyone, body: json(link), success: [200, 201]),
            Op(
                method: "get", path: app + "/users/{user}/links", summary: "A user's links", tag: "Device migration",
                credentials: anyone, success: [200]),
            Op(
                method: "delete", path: app + "/users/{user}/links/{provider}/{externalID}", summary: "Unlink",
                tag: "Device migration", credentials: anyone, success: [204]),
            Op(
                method: "post", path: app + "/links/login", summary: "A token for the linked user",
                tag: "Device migration",
                credentials: [.none], body: json(link), success: [200]),
        ]
    }

    static var groups: [Op] {
        let group = json(
            object(
                ["name": string, "owner": string, "members": ["type": "array", "items": string]], required: ["name"]),
            "application/vnd.kii.GroupCreationRequest+json")
        return [
            Op(
                method: "post", path: app + "/groups", summary: "Create a group", tag: "Groups", credentials: anyone,
                body: group, success: [201]),
            Op(
                method: "get", path: app + "/groups", summary: "Groups by owner or member", tag: "Groups",
                credentials: anyone, query: [("owner", string), ("is_member", string)], success: [200]),
            Op(
                method: "put", path: app + "/groups/{group}", summary: "Create a group with its ID", tag: "Groups",
                credentials: anyone, body: group, success: [201]),
            Op(
                method: "get", path: app + "/groups/{group}", summary: "A group", tag: "Groups", credentials: anyone,
                success: [200]),
            Op(
                method: "delete", path: app + "/groups/{group}", summary: "Delete a group", tag: "Groups",
                credentials: anyone, success: [204]),
            Op(
                method: "put", path: app + "/groups/{group}/name", summary: "Rename a group", tag: "Groups",
                credentials: anyone, body: Op.Body(mediaTypes: ["text/plain", "application/json"], schema: string),
                success: [204]),
            Op(
                method: "put", path: app + "/groups/{group}/owner", summary: "Change a group's owner", tag: "Groups",
                credentials: anyone,
                body: json(
                    object(["owner": string], required: ["owner"]), "application/vnd.kii.GroupOwnerChangeRequest+json"),
                success: [204]),
            Op(
                method: "get", path: app + "/groups/{group}/members", summary: "A group's members", tag: "Groups",
                credentials: anyone, success: [200]),
            Op(
                method: "put", path: app + "/groups/{group}/members/{member}", summary: "Add a member", tag: "Groups",
                credentials: anyone, success: [204]),
            Op(
                method: "delete", path: app + "/groups/{group}/members/{member}", summary: "Remove a member",
                tag: "Groups", credentials: anyone, success: [204]),
        ]
    }

    /// A query body: `{"<envelope>": {"clause", "orderBy", "descending"}, "bestEffortLimit",
    /// "paginationKey"}`.
    static func query(_ envelope: String) -> JSONValue {
        object(
            [
                envelope: object(["clause": anyObject, "orderBy": string, "descending": boolean], required: []),
                "bestEffortLimit": ["type": ["integer", "string"]], "paginationKey": string,
            ], required: [envelope])
    }

    static var things: [Op] {
        let thing = app + "/things/{thing}"
        return [
            Op(
                method: "post", path: app + "/things", summary: "Register a thing (with its token)", tag: "Things",
                credentials: anyone,
                body: json(
                    thingFields, "application/vnd.kii.ThingRegistrationAndAuthorizationRequest+json",
                    "application/vnd.kii.ThingRegistrationRequest+json"), success: [201]),
            Op(
                method: "post", path: app + "/things/query",
                summary: "Query things with Kii's clauses (the admin; a user, limited to its own things)",
                tag: "Things",
                credentials: anyone,
                body: json(query("thingQuery"), "application/vnd.kii.ThingQueryRequest+json"), success: [200]),
            Op(
                method: "get", path: thing, summary: "A thing (its ID or VENDOR_THING_ID:…)", tag: "Things",
                credentials: anyone, success: [200]),
            Op(
                method: "patch", path: thing, summary: "Update a thing's fields", tag: "Things", credentials: anyone,
                body: json(anyObject, "application/vnd.kii.ThingUpdateRequest+json"), success: [200]),
            Op(
                method: "delete", path: thing, summary: "Delete a thing", tag: "Things", credentials: anyone,
                success: [204]),
            Op(
                method: "put", path: thing + "/status", summary: "Disable or enable a thing (admin)", tag: "Things",
                credentials: admin, body: json(object(["disabled": boolean], required: ["disabled"])), success: [204]),
            Op(
                method: "put", path: thing + "/password", summary: "Change a thing's password", tag: "Things",
                credentials: anyone,
                body: json(
                    object(["newPassword": string], required: ["newPassword"]),
                    "application/vnd.kii.ChangeThingPasswordRequest+json"), success: [204]),
            Op(
                method: "post", path: thing + "/ownership", summary: "Claim ownership with the thing's password",
                tag: "Things", credentials: anyone,
                body: json(
                    object(
                        ["thingPassword": string, "userID": string, "groupID": string], required: ["thingPassword"]),
                    "application/vnd.kii.ThingOwnershipRequest+json"), success: [204]),
            Op(
                method: "get", path: thing + "/ownership", summary: "A thing's owners", tag: "Things",
                credentials: anyone, success: [200]),
            Op(
                method: "put", path: thing + "/ownership/{owner}", summary: "Add an owner (user:ID or group:ID)",
                tag: "Things", credentials: anyone, success: [204]),
            Op(
                method: "head", path: thing + "/ownership/{owner}", summary: "Is it an owner?", tag: "Things",
                credentials: anyone, success: [204]),
            Op(
                method: "delete", path: thing + "/ownership/{owner}", summary: "Remove an owner", tag: "Things",
                credentials: anyone, success: [204]),
            Op(
                method: "put", path: thing + "/vendor-thing-id",
                summary: "A new vendor thing ID and password (the thing, an owner or the admin)", tag: "Things",
                credentials: anyone,
                body: json(
                    object(
                        ["_vendorThingID": string, "_password": string], required: ["_vendorThingID", "_password"]),
                    "application/vnd.kii.VendorThingIDUpdateRequest+json"), success: [204]),
            Op(
                method: "get", path: thing + "/vendor-thing-id", summary: "A thing's vendor thing ID", tag: "Things",
                credentials: anyone, success: [200],
                successMediaType: "application/vnd.kii.VendorThingIDRetrievalResponse+json"),
        ]
    }

    /// Thing-IF gateways and their end nodes, under both roots as the SDKs call them.
    static var gateways: [Op] {
        let endNode = app + "/things/{thing}/end-nodes/{endNode}"
        var operations = [app, thingIF].map { root in
            Op(
                method: "get", path: root + "/things/{thing}/end-nodes",
                summary: "A gateway's end nodes (the gateway, its owners or the admin)", tag: "Gateways",
                credentials: anyone, query: [("bestEffortLimit", integer), ("paginationKey", string)], success: [200])
        }
        operations += [
            Op(
                method: "put", path: endNode,
                summary: "Attach a thing to a gateway as its end node (the admin, an owner of both, or the gateway "
                    + "when they share an owner)", tag: "Gateways", credentials: anyone, success: [204]),
            Op(
                method: "delete", path: endNode, summary: "Detach an end node from its gateway", tag: "Gateways",
                credentials: anyone, success: [204]),
            Op(
                method: "post", path: endNode + "/token", summary: "A token that acts as the end node, for its gateway",
                tag: "Gateways", credentials: anyone,
                body: Op.Body(
                    mediaTypes: ["application/json"],
                    schema: object(["expires_in": ["type": ["string", "integer"]]]), required: false),
                success: [200]),
            Op(
                method: "put", path: thingIF + "/things/{thing}/end-nodes/{endNode}/connection",
                summary: "Report an end node online or offline", tag: "Gateways", credentials: anyone,
                body: json(object(["online": boolean], required: ["online"])), success: [204]),
        ]
        return operations
    }

    static var installations: [Op] {
        let installation = app + "/installations/{installation}"
        return [
            Op(
                method: "post", path: app + "/installations", summary: "Install a device for push", tag: "Push",
                credentials: anyone,
                body: json(
                    object([
                        "deviceType": ["type": "string", "enum": ["MQTT", "ANDROID", "IOS", "JPUSH"]],
                        "development": flag,
                        "installationRegistrationID": string, "thingID": string, "userID": string,
                    ]), "application/vnd.kii.InstallationCreationRequest+json"), success: [201]),
            Op(
                method: "get", path: installation, summary: "An installation (ID or deviceType:registrationID)",
                tag: "Push", credentials: anyone, success: [200]),
            Op(
                method: "delete", path: installation, summary: "Delete (and revoke) an installation", tag: "Push",
                credentials: anyone, success: [204]),
            Op(
                method: "get", path: installation + "/mqtt-endpoint", summary: "MQTT credentials and where to connect",
                tag: "Push", credentials: anyone, success: [200]),
        ]
    }

    static var thingInterface: [Op] {
        let target = thingIF + "/targets/{target}"
        let onboarding = object([
            "vendorThingID": string, "thingID": string, "thingPassword": string, "owner": string, "thingType": string,
            "firmwareVersion": string, "layoutPosition": string, "thingProperties": anyObject,
            "gatewayThingID": string, "gatewayVendorThingID": string, "endNodeVendorThingID": string,
            "endNodePassword": string, "endNodeThingType": string, "endNodeFirmwareVersion": string,
            "endNodeThingProperties": ["type": ["object", "string"]],
        ])
        return [
            Op(
                method: "post", path: thingIF + "/onboardings", summary: "Onboard a thing", tag: "Thing-IF",
                credentials: anyone,
                body: Op.Body(
                    mediaTypes: [
                        "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
                        "application/vnd.kii.OnboardingWithThingIDByOwner+json",
                        "application/vnd.kii.OnboardingWithVendorThingIDByThing+json",
                        "application/vnd.kii.OnboardingWithThingIDByThing+json",
                        "application/vnd.kii.OnboardingEndNodeWithGatewayThingID+json",
                        "application/vnd.kii.OnboardingEndNodeWithGatewayVendorThingID+json",
                    ], schema: onboarding), success: [200]),
            Op(
                method: "put", path: thingIF + "/things/{thing}/thing-type", summary: "Set a thing's type (once)",
                tag: "Thing-IF", credentials: anyone,
                body: json(
                    object(["thingType": string], required: ["thingType"]),
                    "application/vnd.kii.ThingTypeUpdateRequest+json"), success: [204]),
            Op(
                method: "get", path: thingIF + "/things/{thing}/thing-type", summary: "A thing's type", tag: "Thing-IF",
                credentials: anyone, success: [200]),
            Op(
                method: "put", path: thingIF + "/things/{thing}/firmware-version",
                summary: "Set a thing's firmware version", tag: "Thing-IF", credentials: anyone,
                body: json(
                    object(["firmwareVersion": string], required: ["firmwareVersion"]),
                    "application/vnd.kii.ThingFirmwareVersionUpdateRequest+json"), success: [204]),
            Op(
                method: "get", path: thingIF + "/things/{thing}/firmware-version",
                summary: "A thing's firmware version",
                tag: "Thing-IF", credentials: anyone, success: [200]),
            Op(
                method: "post", path: target + "/commands", summary: "Send a command (thing:ID)", tag: "Thing-IF",
                credentials: anyone, query: [("trace", boolean)], body: command, success: [201]),
            Op(
                method: "get", path: target + "/commands", summary: "A thing's commands, newest first", tag: "Thing-IF",
                credentials: anyone, query: [("bestEffortLimit", integer), ("paginationKey", string)], success: [200]),
            Op(
                method: "get", path: target + "/commands/{commandID}", summary: "A command", tag: "Thing-IF",
                credentials: anyone, success: [200]),
            Op(
                method: "put", path: target + "/commands/{commandID}/action-results", summary: "The thing's results",
                tag: "Thing-IF", credentials: anyone,
                body: json(
                    object(["actionResults": ["type": "array", "items": anyObject]], required: ["actionResults"]),
                    "application/vnd.kii.CommandResultsUpdateRequest+json"), success: [204]),
            Op(
                method: "put", path: target + "/states",
                summary: "The thing (an owner, an end node's gateway) reports its state: plain, or every trait alias",
                tag: "Thing-IF", credentials: anyone,
                body: json(anyObject, "application/vnd.kii.MultipleTraitState+json"), success: [204]),
            Op(
                method: "put", path: target + "/states/aliases/{alias}", summary: "One trait alias's state",
                tag: "Thing-IF", credentials: anyone, body: json(anyObject, "application/vnd.kii.TraitState+json"),
                success: [204]),
            Op(
                method: "get", path: target + "/states/aliases/{alias}", summary: "One trait alias's latest state",
                tag: "Thing-IF", credentials: anyone, success: [200]),
            Op(
                method: "post", path: target + "/triggers",
                summary:
                    "Create a trigger: a command sent when the thing's states satisfy a condition, or on a schedule",
                tag: "Thing-IF", credentials: anyone,
                body: json(object(triggerMembers, required: ["predicate", "command"])), success: [201]),
            Op(
                method: "get", path: target + "/triggers", summary: "The thing's triggers, a page at a time",
                tag: "Thing-IF", credentials: anyone, query: [("bestEffortLimit", integer), ("paginationKey", string)],
                success: [200]),
            Op(
                method: "get", path: target + "/triggers/{trigger}", summary: "A trigger", tag: "Thing-IF",
                credentials: anyone, success: [200]),
            Op(
                method: "patch", path: target + "/triggers/{trigger}",
                summary: "Change a trigger (the members sent replace theirs)", tag: "Thing-IF", credentials: anyone,
                body: json(object(triggerMembers)), success: [204]),
            Op(
                method: "put", path: target + "/triggers/{trigger}/enable", summary: "Enable a trigger",
                tag: "Thing-IF", credentials: anyone, success: [204]),
            Op(
                method: "put", path: target + "/triggers/{trigger}/disable", summary: "Disable a trigger",
                tag: "Thing-IF", credentials: anyone, success: [204]),
            Op(
                method: "delete", path: target + "/triggers/{trigger}", summary: "Delete a trigger", tag: "Thing-IF",
                credentials: anyone, success: [204]),
            Op(
                method: "get", path: target + "/triggers/{trigger}/results/server-code",
                summary: "A trigger's server-code results (a command trigger has none)", tag: "Thing-IF",
                credentials: anyone, query: [("bestEffortLimit", integer), ("paginationKey", string)],
                success: [200]),
            Op(
                method: "post", path: target + "/states/aliases/{alias}/query",
                summary: "Query one trait alias's state history: ungrouped (paged), grouped by interval, aggregated",
                tag: "Thing-IF", credentials: anyone,
                body: json(
                    object(["query": anyObject], required: ["query"]),
                    "application/vnd.kii.TraitStateQueryRequest+json"), success: [200]),
            Op(
                method: "get", path: target + "/states/aliases/{alias}/history",
                summary: "One trait alias's state history, oldest first", tag: "Thing-IF", credentials: anyone,
                query: [("from", integer), ("to", integer), ("limit", integer)], success: [200]),
            Op(
                method: "get", path: target + "/states", summary: "A thing's latest state", tag: "Thing-IF",
                credentials: anyone, success: [200]),
            Op(
                method: "get", path: target + "/states/history", summary: "A thing's state history, oldest first",
                tag: "Thing-IF", credentials: anyone, query: [("from", integer), ("to", integer), ("limit", integer)],
                success: [200]),
        ]
    }
}
