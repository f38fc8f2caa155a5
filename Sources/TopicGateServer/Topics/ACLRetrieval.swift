import TopicGateCore

/// `GET …/acl` as Kii answers it: every action's subjects under the action's name, an action
/// with none as an empty list.
struct ACLRetrieval: Encodable, Sendable {
    let entries: [ACLEntry]

    init(_ loaded: TopicService.LoadedTopic) { entries = loaded.entries }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberName.self)
        for action in ACLAction.allCases {
            try container.encode(
                entries.filter { $0.action == action }.map(\.subject), forKey: MemberName(action.rawValue))
        }
    }
}
