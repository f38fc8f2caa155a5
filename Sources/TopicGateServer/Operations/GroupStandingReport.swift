import TopicGateCore

/// `GET …/principals/group:{id}/access`: a group's owner and members, its things, the topics
/// in its scope and those whose ACLs name it.
struct GroupStandingReport: Encodable, Sendable {
    struct Member: Encodable, Sendable {
        let principal: String
        let owner: Bool
        let disabled: Bool
        let name: String?
    }

    let principal: String
    let kind = "group"
    let name: String
    let owner: String
    let createdAt: UnixMillis
    let members: [Member]
    let memberCount: Int
    let ownedThings: [String]
    let scopeTopics: [TopicMention]
    let namedIn: [TopicMention]
    let topicsChecked: Int
    let truncated: Bool

    init(_ standing: GroupStanding) {
        let group = standing.group
        principal = "group:\(group.id.rawValue)"
        name = group.name
        owner = Principal.user(group.owner).description
        createdAt = group.createdAt
        members = standing.members.map { member in
            Member(
                principal: Principal.user(member.id).description, owner: member.id == group.owner,
                disabled: member.disabled, name: member.name)
        }
        memberCount = standing.memberCount
        ownedThings = standing.ownedThings.map(\.rawValue)
        scopeTopics = standing.scopeTopics.map(TopicMention.init)
        namedIn = standing.namedIn.map { TopicMention($0, actions: $1) }
        topicsChecked = standing.topicsChecked
        truncated = standing.truncated
    }
}
