/// Which changes move which generation of a store (the same rules on both engines).
enum WatchedChanges {
    /// What can alter access (`Store.accessGeneration`): what changes a token's holder or an app
    /// (`identity`), who belongs to what or owns what (`relations`), and who listens where
    /// (`listeners`). Inserts of users, things and tokens are not such changes: nothing cached
    /// can name a row before it exists.
    static func access(_ change: TableChange) -> Bool {
        standing(change) || listeners(change)
    }

    /// What can alter a principal or what it belongs to or owns (`Store.relationsGeneration`):
    /// `identity` and `relations`, not a subscription or a topic.
    static func standing(_ change: TableChange) -> Bool {
        identity(change) || relations(change)
    }

    /// What can alter a token's holder or an app (`Store.identityGeneration`): a token, user or
    /// thing deleted, any update of a token, a thing or an app (a new client secret), any update
    /// of a user but its last-seen time (the gateway keeps the users it serves `users/me` from,
    /// too).
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

    /// Who belongs to what or owns what (`StoreChange.relations`): any change of a membership, an
    /// ownership or a group. An end node's attachment to
    /// its gateway is one (its commands go to the gateway); the gateway's report of its
    /// connection is not. A thing's triggers are one (what its states fire); a trigger's firing
    /// (its last evaluation, its next due time) is not. These leave token holders and apps
    /// standing.
    static func relations(_ change: TableChange) -> Bool {
        switch change {
        case .insert(let table), .delete(let table):
            return membershipTables.contains(table)
        case .update(let table, let columns):
            if table == "end_nodes" { return columns.contains { !quietEndNodeColumns.contains($0) } }
            if table == "triggers" { return columns.contains { !quietTriggerColumns.contains($0) } }
            return membershipTables.contains(table)
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

    /// Who listens where (`StoreChange.listeners`): any change of a subscription or a topic but
    /// its ACL's list (an ACL change tells the topic cache, not the listeners). What a principal
    /// is, belongs to or owns stands.
    static func listeners(_ change: TableChange) -> Bool {
        switch change {
        case .insert(let table), .delete(let table): listenerTables.contains(table)
        case .update(let table, let columns):
            table == "topics" ? columns.contains { !quietTopicColumns.contains($0) } : listenerTables.contains(table)
        }
    }

    /// Rows whose every change matters: who belongs to what, who owns what.
    static let membershipTables: Set<String> = ["group_members", "thing_owners", "groups", "end_nodes", "triggers"]
    /// Rows whose every change matters to a topic's recipients: who listens where.
    static let listenerTables: Set<String> = ["subscriptions", "topics"]
    /// Rows whose deletion matters (with their tokens, memberships and subscriptions).
    static let principalTables: Set<String> = ["users", "things", "tokens"]
    /// End-node columns that a command's routing does not read (the gateway's connection reports).
    static let quietEndNodeColumns: Set<String> = ["online", "online_modified_at"]
    /// Trigger columns that a firing moves, which no cached trigger is read for.
    static let quietTriggerColumns: Set<String> = ["last_matched", "next_due_at"]
    /// Topic columns that who listens where does not depend on: the ACL's list as the last change
    /// left it (PostgreSQL's `acl_list`).
    static let quietTopicColumns: Set<String> = ["acl_list"]
    /// Installation columns that a delivery does not read.
    static let quietInstallationColumns: Set<String> = ["last_seen_at", "credentials_expire_at"]
}
