/// A principal with the facts an ACL decision needs about it: the groups it belongs to and
/// the things it owns (directly or through one of those groups). Loaded by the caller; the
/// policy never reads storage.
public struct AccessContext: Sendable, Hashable {
    public var principal: Principal
    public var groups: Set<GroupID>
    public var ownedThings: Set<ThingID>

    public init(principal: Principal, groups: Set<GroupID> = [], ownedThings: Set<ThingID> = []) {
        self.principal = principal
        self.groups = groups
        self.ownedThings = ownedThings
    }
}
