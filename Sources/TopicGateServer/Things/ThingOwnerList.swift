import TopicGateCore

/// `GET …/things/{id}/ownership`: the users and the groups that own a thing, each sorted.
struct ThingOwnerList: Encodable, Sendable {
    let users: [String]
    let groups: [String]

    init(_ owners: some Sequence<Owner>) {
        var users: [String] = []
        var groups: [String] = []
        for owner in owners.sorted(by: { "\($0)" < "\($1)" }) {
            switch owner {
            case .user(let id): users.append(id.rawValue)
            case .group(let id): groups.append(id.rawValue)
            }
        }
        self.users = users
        self.groups = groups
    }
}
