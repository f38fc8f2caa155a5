/// Who may act on a thing: the admin, the thing itself, a user owner, or a member of a group
/// owner. A pure function of loaded values.
public enum ThingAccess {
    /// True when `principal` may read, change or delete `thing` and its ownership.
    /// - Parameters:
    ///   - owners: the thing's owners.
    ///   - memberGroups: the groups the principal (when a user) is a member of.
    public static func mayManage(
        _ principal: Principal, thing: ThingID, owners: Set<Owner>, memberGroups: Set<GroupID>
    ) -> Bool {
        switch principal {
        case .admin: return true
        case .thing(let id): return id == thing
        case .anonymous: return false
        case .user(let userID):
            return owners.contains { owner in
                switch owner {
                case .user(let id): id == userID
                case .group(let id): memberGroups.contains(id)
                }
            }
        }
    }
}
