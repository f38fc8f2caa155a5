/// Who can be subscribed to a topic: a user or a thing.
public enum Subscriber: Sendable, Hashable, Comparable, CustomStringConvertible {
    case user(UserID)
    case thing(ThingID)

    /// The principal that receives as this subscriber.
    public var principal: Principal {
        switch self {
        case .user(let id): .user(id)
        case .thing(let id): .thing(id)
        }
    }

    public var description: String { principal.description }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.description < rhs.description }
}
