public import TopicGateCore

/// Groups and their members. The owner is always a member.
public protocol GroupStore: Sendable {
    /// Inserts the group with its owner and those of `members` that exist; returns the
    /// members that do not. `GROUP_ALREADY_EXISTS` when the ID is taken.
    func insertGroup(_ group: Group, members: [UserID]) async throws -> [UserID]
    func group(appID: AppID, id: GroupID) async throws -> Group?
    /// Saves name and owner; a new owner becomes a member.
    func updateGroup(_ group: Group) async throws
    /// Deletes the group, its memberships and its thing ownerships.
    func deleteGroup(appID: AppID, id: GroupID) async throws -> Bool
    /// False when the user was a member already.
    func addMember(appID: AppID, group: GroupID, user: UserID) async throws -> Bool
    /// False when the user was not a member.
    func removeMember(appID: AppID, group: GroupID, user: UserID) async throws -> Bool
    func members(appID: AppID, group: GroupID) async throws -> [UserID]
    func groups(appID: AppID, ownedBy user: UserID) async throws -> [Group]
    func groups(appID: AppID, withMember user: UserID) async throws -> [Group]
    func memberGroupIDs(appID: AppID, user: UserID) async throws -> Set<GroupID>
}
