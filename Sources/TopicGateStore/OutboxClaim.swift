public import TopicGateCore

/// A gateway's hold on outbox messages: no other gateway takes them before `leaseUntil`.
public struct OutboxClaim: Sendable, Hashable {
    public var gateway: String
    public var leaseUntil: UnixMillis

    public init(gateway: String, leaseUntil: UnixMillis) {
        self.gateway = gateway
        self.leaseUntil = leaseUntil
    }
}
