public import TopicGateCore

/// Topics, their ACL entries, their subscriptions and the ACL audit trail.
public protocol TopicStore: Sendable {
    /// Inserts the topic with its default entries, unless `limit` is given and its creator
    /// created that many topics in the app already (counted in the same write);
    /// `TOPIC_ALREADY_EXISTS` when it exists.
    func insertTopic(_ topic: Topic, entries: [ACLEntry], limit: Int?) async throws -> QuotaInsertion
    /// The topic and its entries, in one read.
    func topic(appID: AppID, address: TopicAddress) async throws -> (Topic, [ACLEntry])?
    /// Deletes the topic with its entries and subscriptions.
    func deleteTopic(appID: AppID, address: TopicAddress) async throws -> Bool
    /// Up to `limit` topics of a scope, by name, after `after`.
    func topics(appID: AppID, scope: TopicScope, after: TopicName?, limit: Int) async throws -> [Topic]
    /// Applies every change or none (one transaction), writing one audit record per change.
    /// A grant of an existing entry throws `ACL_ALREADY_EXISTS`, a revoke of a missing one
    /// `ACL_NOT_FOUND`, each with the index of the failed change. Returns the entries after.
    /// `known`: the topic's entries as the caller last read them (its cache), which a store may
    /// plan the changes on, and apply them at once if they are still the topic's entries; the
    /// outcome is the same as without.
    func applyACLChanges(
        appID: AppID, address: TopicAddress, changes: [ACLChange], actor: Principal, at time: UnixMillis,
        known: [ACLEntry]?
    ) async throws -> [ACLEntry]
    /// One page of a topic's ACL audit, oldest first: up to `limit` records after the one whose
    /// key is `after`, each with its key (the next page's `after`).
    func aclAudit(appID: AppID, address: TopicAddress, after: Int64?, limit: Int) async throws
        -> [(key: Int64, record: ACLAuditRecord)]
    /// Subscribes, unless `limit` is given and the subscriber holds that many subscriptions in
    /// the app already (counted and added in one write); `TOPIC_NOT_FOUND` without the topic.
    func subscribe(
        appID: AppID, address: TopicAddress, subscriber: Subscriber, at time: UnixMillis, limit: Int?
    ) async throws -> SubscriptionOutcome
    /// False when not subscribed.
    func unsubscribe(appID: AppID, address: TopicAddress, subscriber: Subscriber) async throws -> Bool
    func isSubscribed(appID: AppID, address: TopicAddress, subscriber: Subscriber) async throws -> Bool
    /// How many topics `creator` created in `appID`: what the per-principal topic quota counts
    /// (a subscription counts its own, `subscribe(…, limit:)`).
    func topicCount(appID: AppID, creator: Principal) async throws -> Int
    /// The groups and owned things of each user, in two queries whatever the count.
    func accessContexts(appID: AppID, users: [UserID]) async throws -> [UserID: AccessContext]
    /// The topic's subscribers with their access contexts, in one read (empty when there is no
    /// such topic).
    func subscriberContexts(appID: AppID, address: TopicAddress) async throws -> [Subscriber: AccessContext]
    /// The topic's subscribers alone, in subscriber order (empty when there is no such topic):
    /// what a send needs when the topic's entries let every user and thing receive.
    func subscribers(appID: AppID, address: TopicAddress) async throws -> [Subscriber]
}

extension TopicStore {
    /// Subscribes whatever the subscriber holds; false when already subscribed.
    public func subscribe(appID: AppID, address: TopicAddress, subscriber: Subscriber, at time: UnixMillis)
        async throws -> Bool
    {
        try await subscribe(appID: appID, address: address, subscriber: subscriber, at: time, limit: nil) == .added
    }

    /// Applies the changes, planned on the topic's entries as the store reads them.
    public func applyACLChanges(
        appID: AppID, address: TopicAddress, changes: [ACLChange], actor: Principal, at time: UnixMillis
    ) async throws -> [ACLEntry] {
        try await applyACLChanges(appID: appID, address: address, changes: changes, actor: actor, at: time, known: nil)
    }
}

extension TopicStore {
    /// Inserts the topic with its default entries, counting against no quota.
    public func insertTopic(_ topic: Topic, entries: [ACLEntry]) async throws {
        _ = try await insertTopic(topic, entries: entries, limit: nil)
    }
}
