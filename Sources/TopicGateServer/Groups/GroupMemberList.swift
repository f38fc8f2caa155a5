import TopicGateCore

/// `GET …/groups/{id}/members`, as Kii answers it.
struct GroupMemberList: Encodable, Sendable {
    struct Member: Encodable, Sendable {
        let userID: String
    }

    let members: [Member]

    init(_ members: [UserID]) {
        self.members = members.map { Member(userID: $0.rawValue) }
    }
}
