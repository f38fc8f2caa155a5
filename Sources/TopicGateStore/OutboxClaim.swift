/// A gateway's hold on outbox messages: no other gateway takes them before `leaseUntil`.
public struct OutboxClaim: Sendable, Hashable {
    public var gateway: String
    public var leaseUntil: Int64

    public init(gateway: String, leaseUntil: Int64) {
        self.gateway = gateway
        self.leaseUntil = leaseUntil
    }
}
