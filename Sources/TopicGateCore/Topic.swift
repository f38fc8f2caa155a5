/// A topic: a named channel in a scope that principals subscribe to and send messages to,
/// each as its ACL allows.
public struct Topic: Sendable, Hashable {
    public var appID: AppID
    public var address: TopicAddress
    /// Who created it: the admin, a user or a thing.
    public var creator: Principal
    public var createdAt: UnixMillis

    public init(appID: AppID, address: TopicAddress, creator: Principal, createdAt: UnixMillis) {
        self.appID = appID
        self.address = address
        self.creator = creator
        self.createdAt = createdAt
    }

    public var scope: TopicScope { address.scope }
    public var name: TopicName { address.name }
}
