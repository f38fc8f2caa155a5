/// Who may create, list, delete and administer topics: pure rules over an `AccessContext`.
public enum TopicPermissions {
    /// App scope: the admin. Group scope: a member. User scope: that user. Thing scope: the
    /// thing or an owner.
    public static func mayCreate(_ context: AccessContext, in scope: TopicScope) -> Bool {
        mayAdminister(context, scope: scope) || {
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
    /// the topic creator.
    public static func mayManage(_ context: AccessContext, _ topic: Topic, groupOwner: UserID?) -> Bool {
        if context.principal == topic.creator && context.principal != .anonymous { return true }
        if case .group = topic.scope, let groupOwner, context.principal == .user(groupOwner) { return true }
        return mayAdminister(context, scope: topic.scope)
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
