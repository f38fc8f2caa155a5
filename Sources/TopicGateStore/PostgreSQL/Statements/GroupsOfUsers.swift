internal import PostgresNIO
import TopicGateCore

/// The groups each of several users is a member of: a row per membership.
struct GroupsOfUsers: NamedStatement {
    static let sql = "SELECT user_id, group_id FROM group_members WHERE app_id = $1 AND user_id = ANY($2)"

    let appID: AppID
    let users: [UserID]

    func makeBindings() -> PostgresBindings { Self.bindings("\(appID)\(users)") }
}
