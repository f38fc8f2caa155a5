/// Which changes move which generation of a store (the same rules on both engines).
enum WatchedChanges {
    /// What can alter access (`Store.accessGeneration`). Inserts of users, things and tokens are
    /// not such changes: nothing cached can name a row before it exists. Any update of a user
    /// but its last-seen time is one (the gateway keeps the users it serves `users/me` from,
    /// too), and so is any update of a thing. An end node's attachment to its gateway is one (its
    /// commands go to the gateway); the gateway's report of its connection is not.
    static func access(_ change: TableChange) -> Bool {
        switch change {
        case .insert(let table):
            return membershipTables.contains(table)
        case .delete(let table):
            return membershipTables.contains(table) || principalTables.contains(table)
        case .update(let table, let columns):
            if table == "end_nodes" { return columns.contains { !quietEndNodeColumns.contains($0) } }
            // An app's update is a new client secret.
            if membershipTables.contains(table) || ["tokens", "things", "apps"].contains(table) { return true }
            return table == "users" && columns.contains { $0 != "last_seen_at" }
        }
    }

    /// What can alter a token's holder or an app (`Store.identityGeneration`), a part of what
    /// `access` watches: a token, user or thing deleted, any update of a token, a thing or an app
    /// (a new client secret), any update of a user but its last-seen time. Not who belongs to
    /// what, owns what or listens where: a grant, a subscription or a membership leaves the
    /// gateway's token holders and apps standing.
    static func identity(_ change: TableChange) -> Bool {
        switch change {
        case .insert:
            return false
        case .delete(let table):
            return principalTables.contains(table)
        case .update(let table, let columns):
            if ["tokens", "things", "apps"].contains(table) { return true }
            return table == "users" && columns.contains { $0 != "last_seen_at" }
        }
    }

    /// What can alter which devices a push goes to (`Store.installationGeneration`): an
    /// installation registered, revoked, deleted or moved to another broker; not a device's
    /// last-seen time or its credentials' expiry.
    static func installations(_ change: TableChange) -> Bool {
        switch change {
        case .insert(let table), .delete(let table):
            return table == "installations"
        case .update(let table, let columns):
            return table == "installations" && columns.contains { !quietInstallationColumns.contains($0) }
        }
    }

    /// Rows whose every change matters: who belongs to what, who owns what, who listens where.
    static let membershipTables: Set<String> = [
        "group_members", "thing_owners", "subscriptions", "topics", "groups", "end_nodes",
    ]
    /// Rows whose deletion matters (with their tokens, memberships and subscriptions).
    static let principalTables: Set<String> = ["users", "things", "tokens"]
    /// End-node columns that a command's routing does not read (the gateway's connection reports).
    static let quietEndNodeColumns: Set<String> = ["online", "online_modified_at"]
    /// Installation columns that a delivery does not read.
    static let quietInstallationColumns: Set<String> = ["last_seen_at", "credentials_expire_at"]
}
