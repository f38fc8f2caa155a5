internal import PostgresNIO
import TopicGateCore

/// The things that some users or groups own: a row per ownership.
struct ThingsOwnedBy: NamedStatement {
    static let sql = """
        SELECT thing_id, owner_kind, owner_id FROM thing_owners
        WHERE app_id = $1 AND ((owner_kind = 'user' AND owner_id = ANY($2)) OR (owner_kind = 'group' AND owner_id = ANY($3)))
        """

    let appID: AppID
    let users: [UserID]
    let groups: [GroupID]

    func makeBindings() -> PostgresBindings { Self.bindings("\(appID)\(users)\(groups)") }
}
