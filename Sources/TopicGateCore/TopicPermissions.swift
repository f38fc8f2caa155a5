/// Who may create, list, delete and administer topics: pure rules over an `AccessContext`.
public enum TopicPermissions {
    /// App scope: the admin. Group scope: a member. User scope: that user. Thing scope: the
    /// thing or an owner.
    public static func mayCreate(_ context: AccessContext, in scope: TopicScope) -> Bool {
        mayAdminister(context, scope: scope)
            || {
                if case .group(let id) = scope { return context.groups.contains(id) }
                return false
            }()
    }

    /// App scope: anyone with credentials. Otherwise as `mayCreate`.
    public static func mayList(_ context: AccessContext, in scope: TopicScope) -> Bool {
        if case .app = scope, context.principal != .anonymous { return true }
        return mayCreate(context, in: scope)
    }

    /// Listing or changing a topic's ACL, and deleting the topic: the admin, the scope owner,
    /// the topic creator while it still belongs to the scope (a member of the group, an owner
    /// of the thing).
    public static func mayManage(_ context: AccessContext, _ topic: Topic, groupOwner: UserID?) -> Bool {
        if context.principal == topic.creator && context.principal != .anonymous && belongs(context, to: topic.scope) {
            return true
        }
        if case .group = topic.scope, let groupOwner, context.principal == .user(groupOwner) { return true }
        return mayAdminister(context, scope: topic.scope)
    }

    /// True while `context`'s principal belongs to `scope`: a member of a group scope, the
    /// thing or an owner of a thing scope. App and user scopes have no membership to lose.
    public static func belongs(_ context: AccessContext, to scope: TopicScope) -> Bool {
        switch scope {
        case .app, .user: true
        case .group(let id): context.groups.contains(id)
        case .thing(let id): context.principal == .thing(id) || context.ownedThings.contains(id)
        }
    }

    /// The admin, and the owner of a user or thing scope.
    static func mayAdminister(_ context: AccessContext, scope: TopicScope) -> Bool {
        switch (scope, context.principal) {
        case (_, .admin): true
        case (.user(let owner), .user(let id)): owner == id
        case (.thing(let owner), .thing(let id)): owner == id
        case (.thing(let owner), .user): context.ownedThings.contains(owner)
        default: false
        }
    }
}
