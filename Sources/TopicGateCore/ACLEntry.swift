/// One topic ACL entry: `subject` may do `action`. `isDefault` marks the entries a topic was
/// created with (they are listed like any other).
public struct ACLEntry: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var action: ACLAction
    public var subject: ACLSubject
    public var isDefault: Bool

    public init(_ action: ACLAction, _ subject: ACLSubject, isDefault: Bool = false) {
        self.action = action
        self.subject = subject
        self.isDefault = isDefault
    }

    public var description: String { "\(action.rawValue)/\(subject)" }

    /// Same action and subject, whether default or not.
    public func matches(_ other: ACLEntry) -> Bool { action == other.action && subject == other.subject }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.action, lhs.subject) < (rhs.action, rhs.subject)
    }
}
