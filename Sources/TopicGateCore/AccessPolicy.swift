/// The one place that decides whether a principal may subscribe to or send to a topic.
///
/// A pure function of fully loaded values: the principal with its groups and owned things,
/// the action, the topic (scope and creator) and the topic's entries. Rules, in order:
/// 1. the admin may do anything;
/// 2. an entry for the principal itself (`UserID:`, `ThingID:`);
/// 3. an entry for a group the principal is a member of;
/// 4. an entry for `ANY_AUTHENTICATED_USER` (users and things) or `ANONYMOUS_USER`;
/// 5. in thing scope, the thing's owners (users, or members of owner groups);
/// 6. otherwise deny.
public enum AccessPolicy {
    public static func evaluate(
        _ context: AccessContext, _ action: ACLAction, on topic: Topic, entries: [ACLEntry]
    ) -> AccessDecision {
        let principal = context.principal
        func decision(_ allowed: Bool, _ reason: AccessDecision.Reason) -> AccessDecision {
            AccessDecision(allowed: allowed, reason: reason, action: action, principal: principal)
        }
        if principal == .admin { return decision(true, .admin) }
        var groupMatch: (ACLEntry, GroupID)?
        var specialMatch: ACLEntry?
        for entry in entries where entry.action == action {
            switch (entry.subject, principal) {
            case (.user(let id), .user(let user)) where id == user:
                return decision(true, .entry(entry))
            case (.thing(let id), .thing(let thing)) where id == thing:
                return decision(true, .entry(entry))
            case (.group(let id), .user) where groupMatch == nil && context.groups.contains(id):
                groupMatch = (entry, id)
            case (.anyAuthenticated, .user), (.anyAuthenticated, .thing), (.anonymous, .anonymous):
                specialMatch = specialMatch ?? entry
            default:
                break
            }
        }
        if let (entry, group) = groupMatch { return decision(true, .groupEntry(entry, group)) }
        if let specialMatch { return decision(true, .entry(specialMatch)) }
        if case .thing(let thing) = topic.scope, case .user = principal, context.ownedThings.contains(thing) {
            return decision(true, .thingOwner(thing))
        }
        return decision(false, .noEntry)
    }

    /// Whether `entries` let every user and every thing do `action` (an `ANY_AUTHENTICATED_USER`
    /// entry): then `evaluate` allows each of them, whatever its groups and owned things.
    public static func allowsEveryUserAndThing(_ action: ACLAction, entries: [ACLEntry]) -> Bool {
        entries.contains { $0.action == action && $0.subject == .anyAuthenticated }
    }
}
