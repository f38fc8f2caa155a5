/// The entries a new topic starts with, and which entries may never be removed.
///
/// - app scope: any authenticated user may subscribe; only the admin sends;
/// - group scope: the creator and the group may subscribe and send;
/// - user scope: that user may subscribe and send;
/// - thing scope: the thing (and the creating owner) may subscribe and send; every current
///   owner of the thing may too, by rule rather than by entry (`AccessPolicy`).
///
/// The creator's entries and the scope owner's entries (user scope: the user; group scope: the
/// group's owner; thing scope: the thing) cannot be removed; the others (the group's, any
/// authenticated user's) can, so a group topic can become an announcement channel.
public enum DefaultACL {
    public static func entries(scope: TopicScope, creator: Principal) -> [ACLEntry] {
        var subjects: [ACLSubject] = []
        switch creator {
        case .user(let id): subjects.append(.user(id))
        case .thing(let id): subjects.append(.thing(id))
        case .admin, .anonymous: break
        }
        switch scope {
        case .app:
            return [ACLEntry(.subscribe, .anyAuthenticated, isDefault: true)]
        case .group(let id): subjects.append(.group(id))
        case .user(let id): subjects.append(.user(id))
        case .thing(let id): subjects.append(.thing(id))
        }
        var seen: Set<ACLSubject> = []
        return subjects.filter { seen.insert($0).inserted }.flatMap { subject in
            ACLAction.allCases.map { ACLEntry($0, subject, isDefault: true) }
        }
    }

    /// True when `entry` belongs to the topic's creator (while it still belongs to the scope)
    /// or to its scope's owner.
    /// - Parameters:
    ///   - groupOwner: the owner of the group, for a group-scope topic.
    ///   - creatorBelongs: whether the creator still belongs to the scope (a member of the
    ///     group, an owner of the thing: `TopicPermissions.belongs`); a creator who left can
    ///     have its entries removed.
    public static func isProtected(_ entry: ACLEntry, of topic: Topic, groupOwner: UserID?, creatorBelongs: Bool = true)
        -> Bool
    {
        switch (topic.creator, entry.subject) {
        case (.user(let creator), .user(let id)) where creator == id && creatorBelongs: return true
        case (.thing(let creator), .thing(let id)) where creator == id && creatorBelongs: return true
        default: break
        }
        switch (topic.scope, entry.subject) {
        case (.user(let owner), .user(let id)): return owner == id
        case (.thing(let owner), .thing(let id)): return owner == id
        case (.group, .user(let id)): return groupOwner == id
        default: return false
        }
    }
}
