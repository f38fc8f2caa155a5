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

    /// In the order of `description` ("thing:…" before "user:…", then by ID), without building
    /// it: a fan-out sorts its recipients, a hundred thousand of them at times.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.thing(let left), .thing(let right)): left.rawValue < right.rawValue
        case (.user(let left), .user(let right)): left.rawValue < right.rawValue
        case (.thing, .user): true
        case (.user, .thing): false
        }
    }
}
