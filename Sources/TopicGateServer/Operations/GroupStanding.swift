import TopicGateCore

/// What the admin asks about one group: its owner and members, the things it owns, the topics
/// of its scope and the topics whose ACL names it.
struct GroupStanding: Sendable {
    /// A member, with what the console shows of it.
    struct Member: Sendable {
        let id: UserID
        let name: String?
        let disabled: Bool
    }

    let group: Group
    /// The members (the owner among them), the owner first; at most `PrincipalInspector.memberLimit`.
    let members: [Member]
    /// How many members the group has.
    let memberCount: Int
    let ownedThings: [ThingID]
    /// The topics of the group's scope.
    let scopeTopics: [Topic]
    /// Topics of any scope whose ACL names the group, with the actions granted to it.
    let namedIn: [(Topic, [ACLAction])]
    let topicsChecked: Int
    let truncated: Bool
}
