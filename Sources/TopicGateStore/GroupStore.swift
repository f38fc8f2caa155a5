public import TopicGateCore

/// Groups and their members. The owner is always a member.
public protocol GroupStore: Sendable {
    /// Inserts the group with its owner and those of `members` that exist; returns the
    /// members that do not. `GROUP_ALREADY_EXISTS` when the ID is taken.
    func insertGroup(_ group: Group, members: [UserID]) async throws -> [UserID]
    func group(appID: AppID, id: GroupID) async throws -> Group?
    /// Changes the group `id` as `change` says, applied inside the write to the row as it is
    /// then (so that an owner change committed meanwhile stands), and saves its name and owner;
    /// a new owner becomes a member. Returns the group as written, nil when there is none.
    /// `change` throws to write nothing.
    func updateGroup(appID: AppID, id: GroupID, _ change: @escaping @Sendable (inout Group) throws -> Void)
        async throws -> Group?
    /// Deletes the group, its memberships and its thing ownerships.
    func deleteGroup(appID: AppID, id: GroupID) async throws -> Bool
    /// False when the user was a member already.
    func addMember(appID: AppID, group: GroupID, user: UserID) async throws -> Bool
    /// False when the user was not a member, or is the group's owner as the write finds it (the
    /// owner never leaves).
    func removeMember(appID: AppID, group: GroupID, user: UserID) async throws -> Bool
    func members(appID: AppID, group: GroupID) async throws -> [UserID]
    func groups(appID: AppID, ownedBy user: UserID) async throws -> [Group]
    func groups(appID: AppID, withMember user: UserID) async throws -> [Group]
    func memberGroupIDs(appID: AppID, user: UserID) async throws -> Set<GroupID>
}
