import Logging
import TopicGateCore
import TopicGateStore

/// Topics in the four scopes: creation, listing, deletion, ACLs (with their audit trail and
/// explanations), subscriptions and sends. Every subscribe and send is decided by
/// `AccessPolicy` over the cached entries.
struct TopicService: Sendable {
    let store: any GroupStore & OperatorStore & ThingStore & TopicStore & UserStore
    let time: TimeSource
    let cache: TopicCache
    let facts: AccessFacts
    let dispatcher: any PushDispatcher
    let users: UserService
    let logger: Logger
    let metrics: ServerMetrics
    /// What the broker takes (nil without push).
    let sizeLimit: PushSizeLimit?
    /// The most topics one user or thing may create, and subscriptions it may hold (nil: no cap).
    var topicLimit: Int?
    var subscriptionLimit: Int?
    /// The most topics one list page holds.
    let pageSize = 100

    // MARK: Topics

    func create(caller: Caller, scope reference: TopicScopeReference, name: String) async throws {
        let scope = try await resolve(caller: caller, reference)
        let address = try Self.address(scope.scope, name)
        let context = try await facts.context(appID: caller.appID, principal: caller.principal)
        guard TopicPermissions.mayCreate(context, in: scope.scope) else {
            throw caller.denied("create topics in \(scope.scope)")
        }
        let topic = Topic(appID: caller.appID, address: address, creator: caller.principal, createdAt: time.now())
        // The creator's quota counted in the same write (the admin has none).
        let limit = caller.principal == .admin ? nil : topicLimit
        if case .limited(let created) = try await store.insertTopic(
            topic, entries: DefaultACL.entries(scope: scope.scope, creator: caller.principal), limit: limit)
        {
            try PrincipalQuota.topics.require(count: created, limit: limit, principal: caller.principal)
        }
    }

    func delete(caller: Caller, scope reference: TopicScopeReference, name: String) async throws {
        let loaded = try await manageable(caller: caller, reference, name, to: "delete this topic")
        _ = try await store.deleteTopic(appID: caller.appID, address: loaded.topic.address)
    }

    /// True when the topic exists; asked by one who may list the scope or use the topic.
    func exists(caller: Caller, scope reference: TopicScopeReference, name: String) async throws -> Bool {
        let scope = try await resolve(caller: caller, reference)
        let address = try Self.address(scope.scope, name)
        let context = try await facts.context(appID: caller.appID, principal: caller.principal)
        guard let (topic, entries) = try await cachedTopic(caller.appID, address) else {
            guard TopicPermissions.mayList(context, in: scope.scope) else {
                throw caller.denied("see topics in \(scope.scope)")
            }
            return false
        }
        let mayUse = ACLAction.allCases.contains {
            AccessPolicy.evaluate(context, $0, on: topic, entries: entries).allowed
        }
        guard mayUse || TopicPermissions.mayList(context, in: scope.scope) else {
            throw caller.denied("see this topic")
        }
        return true
    }

    /// One page of a scope's topics and the key of the next page, if any.
    func list(caller: Caller, scope reference: TopicScopeReference, after: String?) async throws -> ([Topic], String?) {
        let scope = try await resolve(caller: caller, reference)
        let context = try await facts.context(appID: caller.appID, principal: caller.principal)
        guard TopicPermissions.mayList(context, in: scope.scope) else {
            throw caller.denied("list topics in \(scope.scope)")
        }
        let page = try await store.topics(
            appID: caller.appID, scope: scope.scope, after: after.flatMap(TopicName.init(rawValue:)),
            limit: pageSize + 1)
        guard page.count > pageSize else { return (page, nil) }
        let shown = Array(page.prefix(pageSize))
        return (shown, shown.last?.name.rawValue)
    }

    // MARK: ACLs

    /// The topic's entries, with which of them may be removed; for those who manage the topic.
    func entries(caller: Caller, scope reference: TopicScopeReference, name: String) async throws -> LoadedTopic {
        try await manageable(caller: caller, reference, name, to: "read this topic's ACL")
    }

    /// Applies `changes` all-or-nothing and returns the entries after them.
    func change(
        caller: Caller, scope reference: TopicScopeReference, name: String, changes: [ACLChange]
    ) async throws -> [ACLEntry] {
        let loaded = try await manageable(caller: caller, reference, name, to: "change this topic's ACL")
        try Self.checkRemovable(changes, loaded)
        let after = try await store.applyACLChanges(
            appID: caller.appID, address: loaded.topic.address, changes: changes, actor: caller.principal,
            at: time.now(), known: loaded.entries)
        // The change told the cache of itself before it returned (with at least one change it
        // always does): kept as it left the topic unless something else moved the key too.
        if !changes.isEmpty {
            cache.putChanged(caller.appID, loaded.topic.address, (loaded.topic, after), readAt: loaded.readAt)
        }
        for change in changes {
            logger.info(
                "ACL changed",
                metadata: [
                    "topic": "\(loaded.topic.address)", "change": "\(change)", "actor": "\(caller.principal)",
                ])
        }
        return after
    }

    /// One page of the topic's ACL audit, oldest first (records older than the retention
    /// are gone).
    func audit(caller: Caller, scope reference: TopicScopeReference, name: String, after: Int64?, limit: Int)
        async throws -> [(key: Int64, record: ACLAuditRecord)]
    {
        let loaded = try await manageable(caller: caller, reference, name, to: "read this topic's audit trail")
        return try await store.aclAudit(appID: caller.appID, address: loaded.topic.address, after: after, limit: limit)
    }

    /// Why `principal` may or may not do `action`: for those who manage the topic, about
    /// themselves or anonymous callers; the admin about anyone.
    func explain(
        caller: Caller, scope reference: TopicScopeReference, name: String, principal: Principal, action: ACLAction
    ) async throws -> (Topic, AccessDecision) {
        let loaded = try await manageable(caller: caller, reference, name, to: "explain this topic's decisions")
        // A decision can reveal the principal's groups and things: only the admin explains
        // for anyone; others for themselves and for anonymous callers.
        guard caller.principal == .admin || principal == caller.principal || principal == .anonymous else {
            throw caller.denied("explain decisions for another principal; only the admin may")
        }
        let context = try await facts.context(appID: caller.appID, principal: principal)
        return (loaded.topic, AccessPolicy.evaluate(context, action, on: loaded.topic, entries: loaded.entries))
    }

    // MARK: Subscriptions

    func subscribe(caller: Caller, scope reference: TopicScopeReference, name: String, subscriber: Subscriber)
        async throws
    {
        let (topic, entries) = try await usable(caller: caller, reference, name)
        try await requireMaySubscribe(caller, subscriber)
        let context = try await facts.context(appID: caller.appID, principal: subscriber.principal)
        try requireAllowed(caller, AccessPolicy.evaluate(context, .subscribe, on: topic, entries: entries), topic)
        // The subscriber's quota counted in the same write (the admin has none).
        let limit = caller.principal == .admin ? nil : subscriptionLimit
        switch try await store.subscribe(
            appID: caller.appID, address: topic.address, subscriber: subscriber, at: time.now(), limit: limit)
        {
        case .added:
            return
        case .limited(let held):
            try PrincipalQuota.subscriptions.require(count: held, limit: limit, principal: subscriber.principal)
        case .existing:
            throw KiiError(
                .pushSubscriptionAlreadyExists, "\(subscriber) is subscribed to \(topic.address) already.",
                context: Self.topicContext(topic).merging(["subject": .string(subscriber.description)]) { $1 })
        }
    }

    func unsubscribe(caller: Caller, scope reference: TopicScopeReference, name: String, subscriber: Subscriber)
        async throws
    {
        try await existingSubscription(caller, reference, name, subscriber) { address in
            try await store.unsubscribe(appID: caller.appID, address: address, subscriber: subscriber)
        }
    }

    func checkSubscription(caller: Caller, scope reference: TopicScopeReference, name: String, subscriber: Subscriber)
        async throws
    {
        try await existingSubscription(caller, reference, name, subscriber) { address in
            try await store.isSubscribed(appID: caller.appID, address: address, subscriber: subscriber)
        }
    }

    /// Runs `operation` on the subscription of `subscriber` to the topic, for a caller who may
    /// act for the subscriber; `PUSH_SUBSCRIPTION_NOT_FOUND` when it answers false (none).
    private func existingSubscription(
        _ caller: Caller, _ reference: TopicScopeReference, _ name: String, _ subscriber: Subscriber,
        _ operation: (TopicAddress) async throws -> Bool
    ) async throws {
        let (topic, _) = try await usable(caller: caller, reference, name)
        try await requireMaySubscribe(caller, subscriber)
        guard try await operation(topic.address) else { throw Self.notSubscribed(topic, subscriber) }
    }

    // MARK: Sending

    /// Sends `request` to the topic's subscribers that pass SUBSCRIBE; returns the push message
    /// ID. `traced` (the admin's test push): the push core records each device's way there
    /// (`deliveries`).
    func send(
        caller: Caller, scope reference: TopicScopeReference, name: String, request: PushMessageRequest,
        traced: Bool = false
    ) async throws -> String {
        if traced && caller.principal != .admin { throw caller.denied("trace a push; only the admin may") }
        let (topic, entries) = try await usable(caller: caller, reference, name)
        let context = try await facts.context(appID: caller.appID, principal: caller.principal)
        try requireAllowed(caller, AccessPolicy.evaluate(context, .send, on: topic, entries: entries), topic)
        let message = PushMessage(
            id: PushMessageID(Secrets.randomHex(bytes: 12)), appID: caller.appID, topic: topic.address,
            sender: caller.principal,
            sentAt: time.now(), request: request)
        let recipients: [Subscriber]  // in subscriber order
        if AccessPolicy.allowsEveryUserAndThing(.subscribe, entries: entries) {
            // Each subscriber (a user or a thing) passes whatever its groups and things: a
            // broadcast to 100 000 subscribers reads none of theirs.
            recipients = try await facts.subscriberList(appID: caller.appID, address: topic.address)
        } else {
            recipients = try await facts.subscriberContexts(appID: caller.appID, address: topic.address).compactMap {
                subscriber, context in
                AccessPolicy.evaluate(context, .subscribe, on: topic, entries: entries).allowed ? subscriber : nil
            }
        }
        let outgoing = OutboxMessage(
            id: message.id, appID: message.appID, payload: JSONWriter.bytes(message.mqttPayload),
            recipients: recipients, acceptedAt: message.sentAt, traced: traced)
        try sizeLimit?.check(outgoing.payload, field: "data")
        try await dispatcher.dispatch(outgoing)
        return message.id.rawValue
    }

    /// How far the traced push `messageID` got toward each device.
    func deliveries(of messageID: PushMessageID, appID: AppID) async throws -> [DeviceDelivery] {
        try await dispatcher.trace(of: messageID, appID: appID)
    }

    // MARK: Helpers

    /// A topic with its entries and, for a group scope, the group's owner.
    struct LoadedTopic: Sendable {
        let topic: Topic
        let entries: [ACLEntry]
        let groupOwner: UserID?
        /// Whether the topic's creator still belongs to its scope.
        let creatorBelongs: Bool
        /// The topic's generation in the cache before it was read.
        let readAt: TopicCache.Generation

        func isProtected(_ entry: ACLEntry) -> Bool {
            DefaultACL.isProtected(entry, of: topic, groupOwner: groupOwner, creatorBelongs: creatorBelongs)
        }
    }

    func manageable(caller: Caller, _ reference: TopicScopeReference, _ name: String, to what: String) async throws
        -> LoadedTopic
    {
        let scope = try await resolve(caller: caller, reference)
        let address = try Self.address(scope.scope, name)
        let readAt = cache.generation(caller.appID, address)
        guard let (topic, entries) = try await cachedTopic(caller.appID, address, readAt: readAt) else {
            throw KiiError.topicNotFound(appID: caller.appID, address)
        }
        let context = try await facts.context(appID: caller.appID, principal: caller.principal)
        guard TopicPermissions.mayManage(context, topic, groupOwner: scope.groupOwner) else {
            throw caller.denied(what)
        }
        let creator =
            topic.creator == caller.principal
            ? context : try await facts.context(appID: caller.appID, principal: topic.creator)
        return LoadedTopic(
            topic: topic, entries: entries, groupOwner: scope.groupOwner,
            creatorBelongs: TopicPermissions.belongs(creator, to: topic.scope), readAt: readAt)
    }

    func usable(caller: Caller, _ reference: TopicScopeReference, _ name: String) async throws -> (Topic, [ACLEntry]) {
        // A cached topic proves its scope exists (deleting a user, group or thing empties the
        // cache), so a scope named by its ID needs no read.
        if let address = Self.directAddress(caller, reference, name), let cached = cache.get(caller.appID, address) {
            return cached
        }
        let scope = try await resolve(caller: caller, reference)
        let address = try Self.address(scope.scope, name)
        guard let loaded = try await cachedTopic(caller.appID, address) else {
            throw KiiError.topicNotFound(appID: caller.appID, address)
        }
        return loaded
    }

    /// `readAt`: the key's generation, when the caller took it already.
    func cachedTopic(_ appID: AppID, _ address: TopicAddress, readAt: TopicCache.Generation? = nil) async throws
        -> (Topic, [ACLEntry])?
    {
        if let cached = cache.get(appID, address) { return cached }
        // Taken before the read: a change that invalidates the key meanwhile makes the read
        // stale, and then it is not kept.
        let generation = readAt ?? cache.generation(appID, address)
        guard let loaded = try await store.topic(appID: appID, address: address) else { return nil }
        cache.put(appID, address, loaded, readAt: generation)
        return loaded
    }

    /// A principal subscribes itself, a user also a thing it owns; the admin anyone.
    func requireMaySubscribe(_ caller: Caller, _ subscriber: Subscriber) async throws {
        if caller.principal == .admin || caller.principal == subscriber.principal { return }
        if case .thing(let thing) = subscriber, case .user = caller.principal {
            let context = try await facts.context(appID: caller.appID, principal: caller.principal)
            if context.ownedThings.contains(thing) { return }
        }
        throw caller.denied("subscribe or unsubscribe \(subscriber)")
    }

    /// Refuses a denied decision with a message that names the missing permission and nothing
    /// about who has it, and logs the reason.
    func requireAllowed(_ caller: Caller, _ decision: AccessDecision, _ topic: Topic) throws(KiiError) {
        metrics.decision(decision, appID: caller.appID)
        guard !decision.allowed else { return }
        logger.info(
            "Denied",
            metadata: [
                "request.id": "\(RequestID.current ?? "-")", "topic": "\(topic.address)",
                "principal": "\(decision.principal)", "action": "\(decision.action.rawValue)",
                "reason": "\(decision.reasonCode)",
            ])
        var error = KiiError.accessDenied(
            "\(decision.principal) lacks \(decision.action.rawValue) on topic \(topic.address).", appID: caller.appID,
            principal: caller.principal)
        error.context["missingPermission"] = .string(decision.action.rawValue)
        throw error
    }

    /// The scope a path names, checked to exist.
    func resolve(caller: Caller, _ reference: TopicScopeReference) async throws -> ResolvedScope {
        switch reference {
        case .app:
            return ResolvedScope(scope: .app, groupOwner: nil)
        case .group(let id):
            guard IDSyntax.isWellFormed(id.rawValue), let group = try await store.group(appID: caller.appID, id: id)
            else {
                throw GroupService.notFound(appID: caller.appID, id: id)
            }
            return ResolvedScope(scope: .group(id), groupOwner: group.owner)
        case .user(let userReference):
            let user = try await users.kept(caller: caller, reference: userReference)
            return ResolvedScope(scope: .user(user.id), groupOwner: nil)
        case .thing(let thingReference):
            guard let thing = try await store.thing(appID: caller.appID, reference: thingReference) else {
                throw thingReference.notFound(appID: caller.appID)
            }
            return ResolvedScope(scope: .thing(thing.id), groupOwner: nil)
        }
    }

    /// The address of a topic whose scope the path names by ID (or `me`), without a read.
    static func directAddress(_ caller: Caller, _ reference: TopicScopeReference, _ name: String) -> TopicAddress? {
        guard let topicName = TopicName(rawValue: name) else { return nil }
        let scope: TopicScope
        switch reference {
        case .app: scope = .app
        case .group(let id): scope = .group(id)
        case .user(.id(let id)): scope = .user(id)
        case .user(.me):
            guard case .user(let id) = caller.principal else { return nil }
            scope = .user(id)
        case .thing(.id(let id)): scope = .thing(id)
        case .user, .thing: return nil
        }
        return TopicAddress(scope: scope, name: topicName)
    }

    static func address(_ scope: TopicScope, _ name: String) throws(KiiError) -> TopicAddress {
        guard let topicName = TopicName(rawValue: name) else {
            throw KiiError.invalidInput("A topic name is 1 to 64 letters, digits, '_' and '-'.", field: "topicID")
        }
        return TopicAddress(scope: scope, name: topicName)
    }

    static func topicContext(_ topic: Topic) -> [String: JSONValue] {
        ["topicID": .string(topic.name.rawValue), "objectScope": topic.scope.objectScope(appID: topic.appID)]
    }

    static func notSubscribed(_ topic: Topic, _ subscriber: Subscriber) -> KiiError {
        KiiError(
            .pushSubscriptionNotFound, "\(subscriber) is not subscribed to \(topic.address).",
            context: topicContext(topic).merging(["subject": .string(subscriber.description)]) { $1 })
    }
}
