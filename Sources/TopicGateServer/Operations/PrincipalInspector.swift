import TopicGateCore
import TopicGateStore

/// What the admin asks about one user or thing: its groups, the things it owns (or its
/// owners), its devices, and every topic it may subscribe or send to, each decided by
/// `AccessPolicy` as a real subscribe or send would be.
struct PrincipalInspector: Sendable {
    /// A principal's standing in the app.
    struct Access: Sendable {
        let principal: Principal
        let name: String?
        let disabled: Bool
        /// A user's groups.
        let groups: [Group]
        /// The things a user owns, directly or through a group.
        let ownedThings: [ThingID]
        /// A thing's owners.
        let owners: [Owner]
        /// A thing's layout position (`GATEWAY`, `END_NODE`, `STANDALONE`), when set.
        var layoutPosition: String? = nil
        /// An end node's gateway and connection.
        var endNode: EndNode? = nil
        /// A gateway's first end nodes (`endNodeLimit`), and whether it has more.
        var endNodes: [EndNode] = []
        var moreEndNodes = false
        /// Live installations, then revoked ones the broker still refuses (newest first).
        let installations: [(Installation, DevicePresence.Status)]
        /// The topics it may subscribe or send to, with the deciding rule.
        let maySubscribe: [(Topic, AccessDecision)]
        let maySend: [(Topic, AccessDecision)]
        /// How many topics were asked, and whether the app has more than that.
        let topicsChecked: Int
        let truncated: Bool
    }

    let store: any EndNodeStore & GroupStore & InstallationStore & OperatorStore & ThingStore & UserStore
    let facts: AccessFacts
    /// Whether each device is connected, and when it was last seen.
    let presence: DevicePresence
    let time: TimeSource
    /// The most topics one answer looks at.
    var topicLimit = 10_000
    /// The most members of a group one answer names.
    static let memberLimit = 500
    /// The most end nodes of a gateway one answer names.
    static let endNodeLimit = 100

    /// Users, groups and things matching `text` (admin only).
    func search(caller: Caller, text: String, limit: Int) async throws -> [PrincipalMatch] {
        try caller.requireAdmin(to: "search principals; only the admin may")
        return try await store.searchPrincipals(appID: caller.appID, containing: text, limit: limit)
    }

    /// A user's or thing's standing (admin only); `USER_NOT_FOUND` / `THING_NOT_FOUND`.
    /// `withTopics: false` leaves the topics out (a page refreshing its devices).
    func access(caller: Caller, principal: Principal, withTopics: Bool = true) async throws -> Access {
        try caller.requireAdmin(to: "inspect a principal; only the admin may")
        let appID = caller.appID
        let name: String?
        let disabled: Bool
        var groups: [Group] = []
        var owners: [Owner] = []
        var layoutPosition: String?
        var endNode: EndNode?
        var endNodes: (endNodes: [EndNode], next: String?) = ([], nil)
        switch principal {
        case .user(let id):
            guard let user = try await store.user(appID: appID, id: id) else {
                throw KiiError.userNotFound(appID: appID, field: "userID", value: id.rawValue)
            }
            name = user.shownName
            disabled = user.disabled
            groups = try await store.groups(appID: appID, withMember: id)
        case .thing(let id):
            guard let thing = try await store.thing(appID: appID, reference: .id(id)) else {
                throw ThingReference.id(id).notFound(appID: appID)
            }
            name = thing.vendorThingID
            disabled = thing.disabled
            owners = try await store.owners(appID: appID, thing: id).sorted { $0.description < $1.description }
            layoutPosition = thing.fields.layoutPosition
            endNode = try await store.endNode(appID: appID, id: id)
            if layoutPosition == "GATEWAY" {
                endNodes = try await store.endNodes(appID: appID, gateway: id, limit: Self.endNodeLimit, after: nil)
            }
        case .admin, .anonymous:
            throw KiiError.invalidInput("Name a user (user:ID) or a thing (thing:ID).", field: "principal")
        }
        let context = try await facts.context(appID: appID, principal: principal)
        let (checked, truncated) = withTopics ? try await topics(appID: appID) : ([], false)
        func allowed(_ action: ACLAction) -> [(Topic, AccessDecision)] {
            checked.compactMap { topic, entries in
                let decision = AccessPolicy.evaluate(context, action, on: topic, entries: entries)
                return decision.allowed ? (topic, decision) : nil
            }
        }
        return Access(
            principal: principal, name: name, disabled: disabled, groups: groups,
            ownedThings: context.ownedThings.sorted { $0.rawValue < $1.rawValue }, owners: owners,
            layoutPosition: layoutPosition, endNode: endNode, endNodes: endNodes.endNodes,
            moreEndNodes: endNodes.next != nil,
            installations: try await
                (store.liveInstallations(appID: appID, principals: [principal])
                + store.revokedInstallations(appID: appID, principal: principal, now: time.seconds())).map {
                    ($0, presence.status($0))
                },
            maySubscribe: allowed(.subscribe), maySend: allowed(.send), topicsChecked: checked.count,
            truncated: truncated)
    }

    /// The app's first `topicLimit` topics with their entries, and whether it has more.
    private func topics(appID: AppID) async throws -> (checked: ArraySlice<(Topic, [ACLEntry])>, truncated: Bool) {
        let topics = try await store.topicsWithEntries(appID: appID, limit: topicLimit + 1)
        return (topics.prefix(topicLimit), topics.count > topicLimit)
    }

    /// A group's standing (admin only); `GROUP_NOT_FOUND`.
    func group(caller: Caller, id: GroupID) async throws -> GroupStanding {
        try caller.requireAdmin(to: "inspect a group; only the admin may")
        let appID = caller.appID
        guard let group = try await store.group(appID: appID, id: id) else {
            throw GroupService.notFound(appID: appID, id: id)
        }
        let memberIDs = try await store.members(appID: appID, group: id).sorted {
            ($0 != group.owner ? 1 : 0, $0.rawValue) < ($1 != group.owner ? 1 : 0, $1.rawValue)
        }
        var members: [GroupStanding.Member] = []
        for member in memberIDs.prefix(Self.memberLimit) {
            let user = try await store.user(appID: appID, id: member)
            members.append(.init(id: member, name: user?.shownName, disabled: user?.disabled ?? false))
        }
        let (checked, truncated) = try await topics(appID: appID)
        return GroupStanding(
            group: group, members: members, memberCount: memberIDs.count,
            ownedThings: try await store.things(appID: appID, ownedBy: .group(id)),
            scopeTopics: checked.map(\.0).filter { $0.scope == .group(id) },
            namedIn: checked.compactMap { topic, entries in
                let actions = entries.filter { $0.subject == .group(id) }.map(\.action)
                return actions.isEmpty ? nil : (topic, actions)
            },
            topicsChecked: checked.count, truncated: truncated)
    }
}
