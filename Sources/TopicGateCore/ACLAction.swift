/// What a topic ACL entry permits.
public enum ACLAction: String, Sendable, Hashable, CaseIterable, Comparable {
    case subscribe = "SUBSCRIBE_TO_TOPIC"
    case send = "SEND_MESSAGE_TO_TOPIC"

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue > rhs.rawValue }
}
