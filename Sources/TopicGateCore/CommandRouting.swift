/// The Thing-IF rules of who may issue a command and who hears of its result. Pure functions of
/// loaded values.
public enum CommandRouting {
    /// True when `principal` may issue a command to a thing with `owners` as `issuer`: the
    /// issuer must be an owner, and the caller that user itself or a member of that group. The
    /// admin may issue as any owner.
    public static func mayIssue(
        _ principal: Principal, as issuer: Owner, owners: Set<Owner>, memberGroups: Set<GroupID>
    ) -> Bool {
        guard owners.contains(issuer) else { return false }
        switch (principal, issuer) {
        case (.admin, _): return true
        case (.user(let caller), .user(let user)): return caller == user
        case (.user, .group(let group)): return memberGroups.contains(group)
        default: return false
        }
    }

    /// Who receives the `commandID` push once results are in: the issuing user, or the
    /// current members of the issuing group while that group still owns the thing (`owners`).
    /// Never the thing, never another owner. A group that left the thing's owners, or was
    /// deleted, hears nothing: a group made later with the same ID (`PUT /groups/{id}`) is not
    /// the one that issued the command.
    public static func resultRecipients(issuer: Owner, groupMembers: [UserID], owners: Set<Owner>) -> [Subscriber] {
        switch issuer {
        case .user(let user): [.user(user)]
        case .group:
            owners.contains(issuer)
                ? Array(Set(groupMembers)).sorted { $0.rawValue < $1.rawValue }.map { .user($0) } : []
        }
    }
}
