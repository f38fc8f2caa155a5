import TopicGateCore

/// How domain values are written into columns and read back, and the Kii errors a write that
/// breaks a unique constraint becomes: the same for every database.
enum StoredForm {
    static func columns(_ principal: Principal) -> (kind: String, id: String) {
        switch principal {
        case .admin: ("admin", "")
        case .anonymous: ("anonymous", "")
        case .user(let id): ("user", id.rawValue)
        case .thing(let id): ("thing", id.rawValue)
        }
    }

    static func principal(kind: String, id: String) -> Principal? {
        switch kind {
        case "admin": .admin
        case "anonymous": .anonymous
        case "user": .user(UserID(id))
        case "thing": .thing(ThingID(id))
        default: nil
        }
    }

    static func columns(_ owner: Owner) -> (kind: String, id: String) {
        switch owner {
        case .user(let id): ("user", id.rawValue)
        case .group(let id): ("group", id.rawValue)
        }
    }

    static func owner(kind: String, id: String) -> Owner {
        kind == "user" ? .user(UserID(id)) : .group(GroupID(id))
    }

    static func columns(_ scope: TopicScope) -> (kind: String, id: String) {
        switch scope {
        case .app: ("app", "")
        case .group(let id): ("group", id.rawValue)
        case .user(let id): ("user", id.rawValue)
        case .thing(let id): ("thing", id.rawValue)
        }
    }

    /// The scope stored as `columns(_:)` wrote it.
    static func scope(kind: String, id: String) -> TopicScope? {
        switch kind {
        case "app": .app
        case "group": .group(GroupID(id))
        case "user": .user(UserID(id))
        case "thing": .thing(ThingID(id))
        default: nil
        }
    }

    static func columns(_ subscriber: Subscriber) -> (kind: String, id: String) {
        switch subscriber {
        case .user(let id): ("user", id.rawValue)
        case .thing(let id): ("thing", id.rawValue)
        }
    }

    /// The subscriber an ACL subject names (users and things subscribe; groups and the
    /// special subjects do not).
    /// The topic scope of a user, group or thing named as an ACL subject (nil for the others).
    static func scope(of subject: ACLSubject) -> TopicScope? {
        switch subject {
        case .user(let id): .user(id)
        case .group(let id): .group(id)
        case .thing(let id): .thing(id)
        default: nil
        }
    }

    static func subscriber(of subject: ACLSubject) -> Subscriber? {
        switch subject {
        case .user(let id): .user(id)
        case .thing(let id): .thing(id)
        default: nil
        }
    }

    /// `user:ID` or `thing:ID`, as `Subscriber.description` writes it.
    static func subscriber(_ text: Substring) -> Subscriber? {
        switch TypedID(parsing: text) {
        case .user(let id): .user(id)
        case .thing(let id): .thing(id)
        case .group, nil: nil
        }
    }

    /// An outbox row's recipients: one `Subscriber.description` a line.
    /// Written in one string as it goes (a send to a million subscribers would otherwise hold a
    /// million lines beside it).
    static func recipients(_ subscribers: [Subscriber]) -> String {
        var text = ""
        text.reserveCapacity(subscribers.count * 48)
        for (position, subscriber) in subscribers.enumerated() {
            if position > 0 { text.append("\n") }
            switch subscriber {
            case .user(let id):
                text.append("user:")
                text.append(id.rawValue)
            case .thing(let id):
                text.append("thing:")
                text.append(id.rawValue)
            }
        }
        return text
    }

    static func recipients(_ text: String) -> [Subscriber] {
        text.split(separator: "\n").compactMap(subscriber)
    }

    /// An outbox row's delivered brokers: one name a line, in order; nil when none.
    static func brokers(_ names: Set<String>) -> String? {
        names.isEmpty ? nil : names.sorted().joined(separator: "\n")
    }

    static func brokers(_ text: String?) -> Set<String> {
        Set((text ?? "").split(separator: "\n").map(String.init))
    }

    /// The actor of an ACL audit record, as `Principal.description` wrote it.
    static func actor(_ text: String) -> Principal {
        if let typed = TypedID(parsing: text) {
            switch typed {
            case .user(let id): return .user(id)
            case .thing(let id): return .thing(id)
            case .group: return .anonymous
            }
        }
        return text == "admin" ? .admin : .anonymous
    }

    /// An ACL audit record's entry lists (JSON arrays of strings).
    static func entryList(_ text: String) -> [String] {
        ((try? JSONReader.value(Array(text.utf8)))?.arrayValue ?? []).compactMap(\.stringValue)
    }

    static func entryList(_ entries: [String]) -> String {
        JSONWriter.string(.array(entries.map(JSONValue.string)))
    }

    /// A topic's ACL entries in one text that two lists of the same entries share and no other
    /// list does: sorted, one a line, a default entry marked (`topics.acl_list` on PostgreSQL).
    static func aclList(_ entries: [ACLEntry]) -> String {
        entries.sorted().map { $0.isDefault ? "\($0) default" : $0.description }.joined(separator: "\n")
    }

    /// A stored command, or nil when a column does not parse (never written by this store).
    /// A trigger from its stored columns (its predicate and command as stored JSON); nil when
    /// they no longer read.
    static func trigger(
        id: String, appID: AppID, thing: ThingID, predicate: String, command: String, title: String?,
        description: String?, metadata: String?, disabled: Bool, disabledReason: String?, lastMatched: Bool?,
        nextDueAt: UnixMillis?, createdAt: UnixMillis, modifiedAt: UnixMillis
    ) -> Trigger? {
        guard let predicateJSON = try? JSONReader.value(Array(predicate.utf8)),
            let predicate = try? TriggerPredicate(json: predicateJSON),
            let commandJSON = try? JSONReader.value(Array(command.utf8)),
            let command = try? TriggerCommand(json: commandJSON, watched: thing)
        else { return nil }
        return Trigger(
            id: TriggerID(id), appID: appID, thing: thing, predicate: predicate, command: command, title: title,
            description: description, metadata: metadata.flatMap { try? JSONReader.object(Array($0.utf8)) },
            disabled: disabled, disabledReason: disabledReason, lastMatched: lastMatched, nextDueAt: nextDueAt,
            createdAt: createdAt, modifiedAt: modifiedAt)
    }

    static func command(
        id: String, appID: AppID, thing: ThingID, issuer: String, request: String, actionResults: String?,
        state: String, createdAt: UnixMillis, modifiedAt: UnixMillis, publishedAt: UnixMillis?
    ) -> Command? {
        guard let issuer = Owner(parsing: issuer),
            let body = try? JSONReader.object(Array(request.utf8)),
            let request = try? CommandRequest(body: body.merging(["issuer": .string(issuer.description)]) { $1 }),
            let state = CommandState(rawValue: state)
        else { return nil }
        let results = actionResults.flatMap { try? JSONReader.value(Array($0.utf8)) }
        return Command(
            id: CommandID(id), appID: appID, thing: thing, issuer: issuer, request: request, actionResults: results,
            state: state, createdAt: createdAt, modifiedAt: modifiedAt, publishedAt: publishedAt)
    }

    /// A page key of a thing's commands: `<createdAt>:<commandID>` of the last command of the
    /// previous page (nil when there is none, or it is not one).
    static func commandCursor(_ key: String?) -> (createdAt: Int64, commandID: String)? {
        guard let parts = key?.split(separator: ":", maxSplits: 1), parts.count == 2, let at = Int64(parts[0]) else {
            return nil
        }
        return (at, String(parts[1]))
    }

    /// A page of commands read with one more than `limit`: the page, and the key of the next.
    static func commandPage(_ read: [Command], limit: Int) -> (commands: [Command], next: String?) {
        guard read.count > limit else { return (read, nil) }
        let page = Array(read.prefix(limit))
        return (page, page.last.map { "\($0.createdAt.rawValue):\($0.id)" })
    }

    static func changeContext(_ index: Int, _ change: ACLChange) -> [String: JSONValue] {
        ["failedChangeIndex": .int(Int64(index)), "failedChange": .string(change.description)]
    }

    static func topicExists(_ appID: AppID, _ address: TopicAddress) -> KiiError {
        KiiError(
            .topicAlreadyExists, "Topic \(address) already exists.",
            context: [
                "topicID": .string(address.name.rawValue), "objectScope": address.scope.objectScope(appID: appID),
            ])
    }

    /// The error for a user write that broke the unique index (or constraint) `index` names.
    @Sendable static func userConflict(_ index: String) -> KiiError? {
        let field =
            index.contains("login_name")
            ? "loginName"
            : index.contains("email_address")
                ? "emailAddress"
                : index.contains("phone_number") ? "phoneNumber" : "userID"
        return KiiError(
            .userAlreadyExists, "A user with this \(field) already exists.", context: ["field": .string(field)])
    }

    static func groupConflict(_ id: GroupID) -> KiiError {
        KiiError(
            .groupAlreadyExists, "Group \(id.rawValue) already exists.", context: ["groupID": .string(id.rawValue)])
    }

    static func thingConflict(_ vendorThingID: String) -> KiiError {
        KiiError(
            .thingAlreadyExists, "A thing with vendor thing ID \(vendorThingID) already exists.",
            context: ["field": "vendorThingID", "value": .string(vendorThingID)])
    }

    static let linkTaken = KiiError(.linkAlreadyExists, "These credentials are already linked to another user.")
}
