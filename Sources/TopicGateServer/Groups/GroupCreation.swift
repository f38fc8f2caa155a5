import TopicGateCore

/// A group created, as Kii answers it: its ID, and the members asked for that are no users.
struct GroupCreation: Encodable, Sendable {
    let groupID: String
    let notFoundUsers: [String]?

    init(_ group: Group, notFound: [UserID]) {
        groupID = group.id.rawValue
        notFoundUsers = notFound.isEmpty ? nil : notFound.map(\.rawValue)
    }
}
