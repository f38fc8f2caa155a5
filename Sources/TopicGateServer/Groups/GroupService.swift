import TopicGateCore
import TopicGateStore

/// Groups of users. The owner and the admin manage a group; members read it; a member may
/// leave it. The owner is always a member and cannot leave before handing the group over.
struct GroupService: Sendable {
    let store: any GroupStore & UserStore
    let time: TimeSource

    /// Creates a group; `id` given for `PUT /groups/{id}`. Returns it and the members that do
    /// not exist (they are left out, as Kii's `notFoundUsers` reports).
    func create(caller: Caller, id: GroupID?, request: GroupCreationRequest) async throws -> (Group, [UserID]) {
        let owner: UserID
        switch (caller.principal, request.owner) {
        case (.admin, let named?):
            owner = named
        case (.user(let userID), let named):
            if let named, named != userID { throw caller.denied("create a group owned by another user") }
            owner = userID
        case (.admin, nil):
            throw KiiError.invalidInput("The admin must name the group's 'owner'.", field: "owner")
        default:
            throw caller.denied("create groups")
        }
        guard try await store.user(appID: caller.appID, id: owner) != nil else {
            throw KiiError.userNotFound(appID: caller.appID, field: "userID", value: owner.rawValue)
        }
        if let id, !IDSyntax.isWellFormed(id.rawValue) {
            throw KiiError.invalidInput("A group ID is 1 to 128 letters, digits, '-', '_' and '.'.", field: "groupID")
        }
        let now = time.now()
        let group = Group(
            id: id ?? GroupID(Secrets.groupID()), appID: caller.appID, name: request.name, owner: owner, createdAt: now,
            modifiedAt: now)
        let notFound = try await store.insertGroup(group, members: request.members)
        return (group, notFound)
    }

    /// The group, for its members and the admin.
    func read(caller: Caller, id: GroupID) async throws -> Group {
        let group = try await find(caller: caller, id: id)
        try await requireMember(caller, group)
        return group
    }

    func delete(caller: Caller, id: GroupID) async throws {
        let group = try await find(caller: caller, id: id)
        try requireOwner(caller, group, to: "delete this group")
        _ = try await store.deleteGroup(appID: caller.appID, id: id)
    }

    func rename(caller: Caller, id: GroupID, name: String) async throws {
        let found = try await find(caller: caller, id: id)
        try requireOwner(caller, found, to: "rename this group")
        let name = try IdentityRules.groupName(name)
        let modifiedAt = time.now()
        try await update(caller: caller, id: id) { group in
            try requireOwner(caller, group, to: "rename this group")
            group.name = name
            group.modifiedAt = modifiedAt
        }
    }

    /// Hands the group to another existing user, who becomes a member.
    func changeOwner(caller: Caller, id: GroupID, request: GroupOwnerChangeRequest) async throws {
        let found = try await find(caller: caller, id: id)
        try requireOwner(caller, found, to: "change this group's owner")
        guard try await store.user(appID: caller.appID, id: request.owner) != nil else {
            throw KiiError.userNotFound(appID: caller.appID, field: "userID", value: request.owner.rawValue)
        }
        let modifiedAt = time.now()
        try await update(caller: caller, id: id) { group in
            try requireOwner(caller, group, to: "change this group's owner")
            group.owner = request.owner
            group.modifiedAt = modifiedAt
        }
    }

    /// Applies `change` to the group as it is when the write runs: the owner it checks is the
    /// owner then, not the one this request read (another request may have handed it over).
    private func update(caller: Caller, id: GroupID, _ change: @escaping @Sendable (inout Group) throws -> Void)
        async throws
    {
        guard try await store.updateGroup(appID: caller.appID, id: id, change) != nil else {
            throw Self.notFound(appID: caller.appID, id: id)
        }
    }

    func addMember(caller: Caller, id: GroupID, user: UserID) async throws {
        let group = try await find(caller: caller, id: id)
        try requireOwner(caller, group, to: "add members to this group")
        guard try await store.user(appID: caller.appID, id: user) != nil else {
            throw KiiError.userNotFound(appID: caller.appID, field: "userID", value: user.rawValue)
        }
        _ = try await store.addMember(appID: caller.appID, group: id, user: user)
    }

    func removeMember(caller: Caller, id: GroupID, user: UserID) async throws {
        let group = try await find(caller: caller, id: id)
        if caller.principal != .user(user) {
            try requireOwner(caller, group, to: "remove members from this group")
        }
        guard user != group.owner else { throw Self.ownerStays }
        guard try await store.removeMember(appID: caller.appID, group: id, user: user) else {
            // The group was handed to this user meanwhile: the owner never leaves.
            if try await store.group(appID: caller.appID, id: id)?.owner == user { throw Self.ownerStays }
            throw KiiError(
                .groupMemberNotFound, "User \(user.rawValue) is not a member of this group.",
                context: ["groupID": .string(id.rawValue), "userID": .string(user.rawValue)])
        }
    }

    func members(caller: Caller, id: GroupID) async throws -> [UserID] {
        let group = try await find(caller: caller, id: id)
        try await requireMember(caller, group)
        return try await store.members(appID: caller.appID, group: id)
    }

    /// The groups a user owns (`owner`) or belongs to (`member`); the user itself or the admin.
    func groups(caller: Caller, owner: UserID?, member: UserID?) async throws -> [Group] {
        guard let user = owner ?? member else {
            throw KiiError.invalidInput("Name the user with '?owner=' or '?is_member='.", field: "owner")
        }
        guard caller.principal == .admin || caller.principal == .user(user) else {
            throw caller.denied("list another user's groups")
        }
        if let owner { return try await store.groups(appID: caller.appID, ownedBy: owner) }
        return try await store.groups(appID: caller.appID, withMember: user)
    }

    func find(caller: Caller, id: GroupID) async throws -> Group {
        try caller.requireAuthenticated(to: "use groups")
        guard IDSyntax.isWellFormed(id.rawValue), let group = try await store.group(appID: caller.appID, id: id) else {
            throw Self.notFound(appID: caller.appID, id: id)
        }
        return group
    }

    func requireOwner(_ caller: Caller, _ group: Group, to what: String) throws(KiiError) {
        guard caller.principal == .admin || caller.principal == .user(group.owner) else { throw caller.denied(what) }
    }

    func requireMember(_ caller: Caller, _ group: Group) async throws {
        if caller.principal == .admin { return }
        guard let user = caller.principal.userID,
            try await store.memberGroupIDs(appID: caller.appID, user: user).contains(group.id)
        else { throw caller.denied("read this group") }
    }

    static let ownerStays = KiiError(
        .operationNotAllowed, "The owner cannot leave the group; hand it to another member first.")

    static func notFound(appID: AppID, id: GroupID) -> KiiError {
        KiiError(
            .groupNotFound, "Group \(id.rawValue) was not found.",
            context: [
                "groupID": .string(id.rawValue), "appID": .string(appID.rawValue),
            ])
    }
}
