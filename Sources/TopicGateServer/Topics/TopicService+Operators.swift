import TopicGateCore
import TopicGateStore

/// What operators ask of one topic beyond its entries: a batch of changes previewed, who may
/// subscribe or send, and who is subscribed. Each answer comes from `AccessPolicy` itself, so
/// the console never shows a decision the gateway would not make.
extension TopicService {
    /// The principals `AccessPolicy` lets do an action, and the rules that let everyone in.
    struct Admitted: Sendable {
        /// Each named principal that passes, with its decision (sorted by principal).
        let decisions: [AccessDecision]
        /// An entry for `ANY_AUTHENTICATED_USER` admits every user and thing.
        let anyAuthenticated: Bool
        /// An entry for `ANONYMOUS_USER` admits callers without credentials.
        let anonymous: Bool
        /// More principals than `limit` passed; `decisions` holds the first ones.
        let truncated: Bool
    }

    /// The entries `changes` would leave, checked as `change` checks them, without writing.
    func preview(
        caller: Caller, scope reference: TopicScopeReference, name: String, changes: [ACLChange]
    ) async throws -> [ACLEntry] {
        let loaded = try await manageable(caller: caller, reference, name, to: "change this topic's ACL")
        try Self.checkRemovable(changes, loaded)
        return try ACLChangePlan(entries: loaded.entries, changes: changes).entries
    }

    /// Who may do `action` (admin only: it reveals memberships): the users, groups' members and
    /// things the entries name, and in a thing's scope its owners (group owners' members
    /// included), each passed through `AccessPolicy`.
    func admitted(
        caller: Caller, scope reference: TopicScopeReference, name: String, action: ACLAction, limit: Int = 1000
    ) async throws -> Admitted {
        try caller.requireAdmin(to: "list who may use a topic; only the admin may")
        let loaded = try await manageable(caller: caller, reference, name, to: "list who may use this topic")
        let appID = caller.appID
        var users: Set<UserID> = []
        var things: Set<ThingID> = []
        var groups: Set<GroupID> = []
        for entry in loaded.entries where entry.action == action {
            switch entry.subject {
            case .user(let id): users.insert(id)
            case .thing(let id): things.insert(id)
            case .group(let id): groups.insert(id)
            case .anyAuthenticated, .anonymous: break
            }
        }
        switch loaded.topic.scope {
        case .thing(let thing):
            things.insert(thing)
            for owner in try await store.owners(appID: appID, thing: thing) {
                switch owner {
                case .user(let id): users.insert(id)
                case .group(let id): groups.insert(id)
                }
            }
        case .user(let id): users.insert(id)
        case .group, .app: break
        }
        for group in groups { users.formUnion(try await store.members(appID: appID, group: group)) }
        let userContexts = try await store.accessContexts(appID: appID, users: Array(users))
        let candidates =
            users.map { userContexts[$0] ?? AccessContext(principal: .user($0)) }
            + things.map { AccessContext(principal: .thing($0)) }
        let decisions = candidates.map { AccessPolicy.evaluate($0, action, on: loaded.topic, entries: loaded.entries) }
            .filter(\.allowed).sorted { $0.principal.description < $1.principal.description }
        let entries = loaded.entries.filter { $0.action == action }.map(\.subject)
        return Admitted(
            decisions: Array(decisions.prefix(limit)), anyAuthenticated: entries.contains(.anyAuthenticated),
            anonymous: entries.contains(.anonymous), truncated: decisions.count > limit)
    }

    /// The topic's subscribers, each with whether it still passes `SUBSCRIBE_TO_TOPIC` (a send
    /// reaches only those that do); for those who manage the topic.
    func subscribers(caller: Caller, scope reference: TopicScopeReference, name: String) async throws
        -> [(Subscriber, receives: Bool)]
    {
        let loaded = try await manageable(caller: caller, reference, name, to: "list this topic's subscribers")
        let subscribed = try await store.subscriberContexts(appID: caller.appID, address: loaded.topic.address)
        return subscribed.map { subscriber, context in
            (subscriber, AccessPolicy.evaluate(context, .subscribe, on: loaded.topic, entries: loaded.entries).allowed)
        }.sorted { $0.0 < $1.0 }
    }

    /// Topics of every scope that match `text` (see `OperatorStore.searchTopics`); admin only.
    func search(caller: Caller, text: String, limit: Int) async throws -> [Topic] {
        try caller.requireAdmin(to: "search topics; only the admin may")
        return try await store.searchTopics(appID: caller.appID, containing: text, limit: limit)
    }

    /// How operators know principals: a user's login name (or display name), a thing's vendor
    /// thing ID; at most `limit` are read, one read each, and those without a name are left out.
    func names(appID: AppID, of principals: [Principal], limit: Int = 200) async throws -> [Principal: String] {
        var names: [Principal: String] = [:]
        for principal in principals.prefix(limit) {
            switch principal {
            case .user(let id):
                names[principal] = try await store.user(appID: appID, id: id)?.shownName
            case .thing(let id):
                names[principal] = try await store.thing(appID: appID, reference: .id(id))?.vendorThingID
            case .admin, .anonymous: break
            }
        }
        return names
    }

    /// The names of the users, groups and things `subjects` name (see `names(appID:of:)`; a
    /// group's name).
    func names(appID: AppID, of subjects: [ACLSubject]) async throws -> [ACLSubject: String] {
        let subjects = Array(subjects.prefix(200))
        let principals = try await self.names(appID: appID, of: subjects.compactMap(\.principal))
        var names: [ACLSubject: String] = [:]
        for subject in subjects {
            if case .group(let id) = subject {
                names[subject] = try await store.group(appID: appID, id: id)?.name
            } else if let principal = subject.principal {
                names[subject] = principals[principal]
            }
        }
        return names
    }

    /// Refuses a batch that revokes a protected entry, naming the first such change.
    static func checkRemovable(_ changes: [ACLChange], _ loaded: LoadedTopic) throws(KiiError) {
        guard !changes.isEmpty else { throw KiiError.invalidInput("There are no changes to apply.", field: "changes") }
        for (index, change) in changes.enumerated() where change.kind == .revoke {
            if loaded.isProtected(change.entry) {
                throw KiiError(
                    .aclEntryNotRemovable,
                    "The entry \(change.entry) belongs to the topic's creator or its scope's owner and cannot be "
                        + "removed.",
                    context: ["failedChangeIndex": .int(Int64(index)), "failedChange": .string(change.description)])
            }
        }
    }
}
