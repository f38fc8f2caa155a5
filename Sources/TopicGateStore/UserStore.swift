public import TopicGateCore

/// Users. Login names, email addresses and phone numbers are unique within an app; a write
/// that would break that throws `USER_ALREADY_EXISTS`.
public protocol UserStore: Sendable {
    /// Inserts `user` and, in the same transaction, its first access token (so that a sign-up
    /// that answers with a token is one durable write).
    func insertUser(_ user: User, token: AccessToken?) async throws
    func user(appID: AppID, id: UserID) async throws -> User?
    func user(appID: AppID, address: LoginIdentifier) async throws -> User?
    /// Changes the user `id` as `change` says, applied inside the write to the row as it is then,
    /// so that a change another request committed meanwhile (a disable, a password change)
    /// stands; the whole row is written back. Returns the user as written, nil when there is no
    /// such user. `change` throws to write nothing (its error is rethrown as it is).
    func updateUser(appID: AppID, id: UserID, _ change: @escaping @Sendable (inout User) throws -> Void)
        async throws -> User?
    /// Disables or enables a user or a thing (`principal`); false when there is no such one.
    func setDisabled(appID: AppID, _ principal: Principal, disabled: Bool, at time: UnixMillis) async throws -> Bool
    /// Deletes the user with its tokens, memberships, thing ownerships and the groups it owns.
    /// False when there was no such user.
    func deleteUser(appID: AppID, id: UserID) async throws -> Bool
    /// Pseudo users of any app (or of `appID`) last seen before `cutoff` that have no account
    /// link (a linked pseudo user can come back on a new device), oldest first, at most `limit`.
    func idlePseudoUsers(appID: AppID?, lastSeenBefore cutoff: UnixMillis, limit: Int) async throws -> [User]
    /// Deletes the user as `deleteUser` does, but only while it is still what
    /// `idlePseudoUsers` selects: pseudo, last seen before `cutoff`, with no account link. The
    /// check and the delete are one write, so a user upgraded, linked or seen meanwhile stays.
    func deleteIdlePseudoUser(appID: AppID, id: UserID, lastSeenBefore cutoff: UnixMillis) async throws -> Bool
    /// Records that the user was seen (its token used) at `time`.
    func touchUser(appID: AppID, id: UserID, at time: UnixMillis) async throws
}

extension UserStore {
    public func insertUser(_ user: User) async throws { try await insertUser(user, token: nil) }
}
