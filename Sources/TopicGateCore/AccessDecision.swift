/// The answer of `AccessPolicy.evaluate`: allowed or not, and why. The same value feeds the
/// HTTP error, the audit log, `topicgate acl explain` and the metrics.
public struct AccessDecision: Sendable, Hashable, CustomStringConvertible {
    /// Why a decision came out as it did.
    public enum Reason: Sendable, Hashable {
        /// The app admin may do anything.
        case admin
        /// An entry names the principal itself.
        case entry(ACLEntry)
        /// An entry names a group the principal is a member of.
        case groupEntry(ACLEntry, GroupID)
        /// An owner of the thing whose scope the topic is in.
        case thingOwner(ThingID)
        /// Nothing grants it: the default, deny.
        case noEntry
    }

    public var allowed: Bool
    public var reason: Reason
    public var action: ACLAction
    public var principal: Principal

    public init(allowed: Bool, reason: Reason, action: ACLAction, principal: Principal) {
        self.allowed = allowed
        self.reason = reason
        self.action = action
        self.principal = principal
    }

    /// A sentence for operators: what was decided and which rule decided it.
    public var description: String {
        let verdict = allowed ? "allowed" : "denied"
        switch reason {
        case .admin:
            return "\(verdict): the app admin may do anything"
        case .entry(let entry):
            return "\(verdict) by the \(entry.isDefault ? "default" : "granted") entry \(entry)"
        case .groupEntry(let entry, let group):
            return
                "\(verdict) by the \(entry.isDefault ? "default" : "granted") entry \(entry) (\(principal) is a "
                + "member of group \(group.rawValue))"
        case .thingOwner(let thing):
            return "\(verdict): \(principal) owns thing \(thing.rawValue), the topic's scope"
        case .noEntry:
            return "\(verdict): no entry grants \(action.rawValue) to \(principal)"
        }
    }

    /// The short reason code for logs and metrics.
    public var reasonCode: String {
        switch reason {
        case .admin: "admin"
        case .entry: "entry"
        case .groupEntry: "group_entry"
        case .thingOwner: "thing_owner"
        case .noEntry: "no_entry"
        }
    }
}
