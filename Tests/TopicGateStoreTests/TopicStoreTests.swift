import Testing
import TopicGateCore
import TopicGateStore

/// Topics, ACL entries, subscriptions and the ACL audit on each engine.
@Suite("Store: topics, ACLs, subscriptions")
struct TopicStoreTests {
    let appID = AppID("app1")
    let ann = UserID("ann")
    let bob = UserID("bob")
    let group = GroupID("g")
    let lamp = ThingID("lamp")

    /// A store with users ann (member of group g, owned by bob) and bob, ann's thing `lamp`, and
    /// the group's topic `news`.
    func newStore(_ engine: StoreEngine) async throws -> any Store {
        let store = try await engine.newStore(appID: appID)
        for id in [ann, bob] {
            try await store.insertUser(User(id: id, appID: appID, passwordHash: "h", createdAt: 1, modifiedAt: 1))
        }
        _ = try await store.insertGroup(
            Group(id: group, appID: appID, name: "g", owner: bob, createdAt: 1, modifiedAt: 1), members: [ann])
        try await store.insertThing(
            Thing(
                id: lamp, appID: appID, vendorThingID: "v-lamp", passwordHash: "h", fields: ThingFields(), createdAt: 1,
                modifiedAt: 1))
        _ = try await store.addOwner(appID: appID, thing: lamp, owner: .group(group))
        try await store.insertTopic(
            Topic(appID: appID, address: news, creator: .user(bob), createdAt: 5),
            entries: [
                ACLEntry(.subscribe, .group(group), isDefault: true), ACLEntry(.send, .user(bob), isDefault: true),
            ])
        return store
    }

    var news: TopicAddress { TopicAddress(scope: .group(group), name: TopicName(rawValue: "news")!) }

    @Test(
        "A topic round-trips with its entries; a second one of the same address: TOPIC_ALREADY_EXISTS",
        arguments: StoreEngine.allCases)
    func topics(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        let (topic, entries) = try #require(try await store.topic(appID: appID, address: news))
        #expect(topic.creator == .user(bob))
        #expect(topic.createdAt == 5)
        #expect(
            entries
                == [ACLEntry(.send, .user(bob), isDefault: true), ACLEntry(.subscribe, .group(group), isDefault: true)]
                .sorted())
        let duplicate = await #expect(throws: KiiError.self) {
            try await store.insertTopic(Topic(appID: appID, address: news, creator: .admin, createdAt: 6), entries: [])
        }
        #expect(duplicate?.code == .topicAlreadyExists)
        for name in ["b", "a", "C", "c-2"] {
            try await store.insertTopic(
                Topic(
                    appID: appID, address: TopicAddress(scope: .app, name: TopicName(rawValue: name)!), creator: .admin,
                    createdAt: 1), entries: [])
        }
        // Pages by name, bytewise (upper case first), after the last name of the previous page.
        let first = try await store.topics(appID: appID, scope: .app, after: nil, limit: 2)
        #expect(first.map(\.name.rawValue) == ["C", "a"])
        let second = try await store.topics(appID: appID, scope: .app, after: first.last?.name, limit: 5)
        #expect(second.map(\.name.rawValue) == ["b", "c-2"])
        #expect(try await store.deleteTopic(appID: appID, address: news))
        #expect(try await store.topic(appID: appID, address: news) == nil)
        #expect(try await store.deleteTopic(appID: appID, address: news) == false)
    }

    @Test(
        "Concurrent ACL changes of one topic take turns: a grant made thrice at once applies once, ACL_ALREADY_EXISTS for the others; each audit record's entries before are those after the record before it",
        arguments: StoreEngine.allCases, [false, true])
    func concurrentACLChanges(_ engine: StoreEngine, planOnKnown: Bool) async throws {
        let store = try await newStore(engine)
        let subjects: [ACLSubject] = (0..<12).map { .user(UserID("u\($0)")) }
        // Every change planned on the entries before any of them (as a gateway's cache could
        // hold them), or on none.
        let known = planOnKnown ? try #require(try await store.topic(appID: appID, address: news)).1 : nil
        // Each subject granted by three changes at once.
        let outcomes = await withTaskGroup(of: KiiError.Code?.self) { group in
            for subject in subjects {
                for _ in 0..<3 {
                    group.addTask {
                        do {
                            _ = try await store.applyACLChanges(
                                appID: appID, address: news, changes: [ACLChange(.grant, ACLEntry(.send, subject))],
                                actor: .admin, at: 20, known: known)
                            return nil
                        } catch let error as KiiError {
                            return error.code
                        } catch {
                            return KiiError.Code(rawValue: "not a Kii error: \(error)")
                        }
                    }
                }
            }
            return await group.reduce(into: [KiiError.Code?]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == nil }.count == subjects.count)
        #expect(outcomes.filter { $0 == .aclAlreadyExists }.count == 2 * subjects.count)
        let entries = try #require(try await store.topic(appID: appID, address: news)).1
        #expect(entries.filter { !$0.isDefault }.map(\.subject) == subjects.sorted { $0.description < $1.description })
        let audit = try await store.aclAudit(appID: appID, address: news, after: nil, limit: 100).map(\.record)
        #expect(audit.count == subjects.count)
        for (earlier, later) in zip(audit, audit.dropFirst()) {
            #expect(later.before == earlier.after)
        }
        #expect(audit.last?.after == entries.map(\.description))
    }

    @Test(
        "A change planned on entries that are no longer the topic's has the outcome of one planned on the topic's: the grant of an entry granted meanwhile answers ACL_ALREADY_EXISTS, the revoke of one granted meanwhile applies, and an entry of a deleted user is not brought back",
        arguments: StoreEngine.allCases)
    func changesOnStaleEntries(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        let annSends = ACLEntry(.send, .user(ann))
        let before = try #require(try await store.topic(appID: appID, address: news)).1
        _ = try await store.applyACLChanges(
            appID: appID, address: news, changes: [ACLChange(.grant, annSends)], actor: .admin, at: 20)
        // Planned on `before`, where ann has no entry: a grant would apply, yet hers exists.
        let again = await #expect(throws: KiiError.self) {
            _ = try await store.applyACLChanges(
                appID: appID, address: news, changes: [ACLChange(.grant, annSends)], actor: .admin, at: 21,
                known: before)
        }
        #expect(again?.code == .aclAlreadyExists)
        // Planned on `before`, where ann has no entry to revoke: yet it is revoked.
        let revoked = try await store.applyACLChanges(
            appID: appID, address: news, changes: [ACLChange(.revoke, annSends)], actor: .admin, at: 22, known: before)
        #expect(revoked == before)
        // Planned on entries that name a user deleted since (with the entries that named him).
        let carl = UserID("carl")
        try await store.insertUser(User(id: carl, appID: appID, passwordHash: "h", createdAt: 1, modifiedAt: 1))
        let withCarl = try await store.applyACLChanges(
            appID: appID, address: news, changes: [ACLChange(.grant, ACLEntry(.send, .user(carl)))], actor: .admin,
            at: 23)
        #expect(try await store.deleteUser(appID: appID, id: carl))
        let after = try await store.applyACLChanges(
            appID: appID, address: news, changes: [ACLChange(.grant, annSends)], actor: .admin, at: 24,
            known: withCarl)
        #expect(after == (before + [annSends]).sorted())
        #expect(try await store.topic(appID: appID, address: news)?.1 == after)
        let audit = try await store.aclAudit(appID: appID, address: news, after: nil, limit: 100).map(\.record)
        #expect(audit.last?.before == before.map(\.description))
    }

    @Test(
        "A subscription with a limit is added while the subscriber holds fewer in the app; at the limit nothing is added, whether subscribed already or not",
        arguments: StoreEngine.allCases)
    func subscriptionLimit(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        let other = TopicAddress(scope: .app, name: TopicName(rawValue: "other")!)
        try await store.insertTopic(Topic(appID: appID, address: other, creator: .admin, createdAt: 1), entries: [])
        func subscribe(_ address: TopicAddress, limit: Int?) async throws -> SubscriptionOutcome {
            try await store.subscribe(appID: appID, address: address, subscriber: .user(ann), at: 1, limit: limit)
        }
        #expect(try await subscribe(news, limit: 1) == .added)
        #expect(try await subscribe(other, limit: 1) == .limited(held: 1))
        #expect(try await store.isSubscribed(appID: appID, address: other, subscriber: .user(ann)) == false)
        #expect(try await subscribe(news, limit: 1) == .limited(held: 1))
        #expect(try await subscribe(news, limit: 2) == .existing)
        #expect(try await subscribe(other, limit: 2) == .added)
        #expect(try await store.isSubscribed(appID: appID, address: other, subscriber: .user(ann)))
        #expect(try await subscribe(news, limit: nil) == .existing)
    }

    @Test(
        "ACL changes apply all or none, each audited with the entries before and after",
        arguments: StoreEngine.allCases)
    func aclChanges(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        let grantAnn = ACLChange(.grant, ACLEntry(.send, .user(ann)))
        let after = try await store.applyACLChanges(
            appID: appID, address: news, changes: [grantAnn, ACLChange(.revoke, ACLEntry(.send, .user(bob)))],
            actor: .user(bob), at: 10)
        #expect(after == [ACLEntry(.send, .user(ann)), ACLEntry(.subscribe, .group(group), isDefault: true)].sorted())
        // The second change fails: the first is not kept.
        let error = await #expect(throws: KiiError.self) {
            _ = try await store.applyACLChanges(
                appID: appID, address: news,
                changes: [ACLChange(.grant, ACLEntry(.send, .anyAuthenticated)), grantAnn], actor: .admin, at: 11)
        }
        #expect(error?.code == .aclAlreadyExists)
        #expect(error?.context["failedChangeIndex"] == .int(1))
        #expect(try await store.topic(appID: appID, address: news)?.1 == after)
        let audit = try await store.aclAudit(appID: appID, address: news, after: nil, limit: 100).map(\.record)
        #expect(audit.map(\.change) == [grantAnn, ACLChange(.revoke, ACLEntry(.send, .user(bob)))])
        // A page at a time: the first record, then what follows its key.
        let first = try await store.aclAudit(appID: appID, address: news, after: nil, limit: 1)
        #expect(first.map(\.record.change) == [grantAnn])
        let rest = try await store.aclAudit(appID: appID, address: news, after: first.first?.key, limit: 100)
        #expect(rest.map(\.record.change) == [ACLChange(.revoke, ACLEntry(.send, .user(bob)))])
        #expect(audit.map(\.actor) == [.user(bob), .user(bob)])
        #expect(audit.last?.after == after.map(\.description))
        #expect(audit.first?.at == 10)
        let missing = await #expect(throws: KiiError.self) {
            _ = try await store.applyACLChanges(
                appID: appID, address: news, changes: [ACLChange(.revoke, ACLEntry(.send, .user(bob)))], actor: .admin,
                at: 12)
        }
        #expect(missing?.code == .aclNotFound)
        // A change 90 days and more after the first ones removes their records.
        _ = try await store.applyACLChanges(
            appID: appID, address: news, changes: [ACLChange(.grant, ACLEntry(.send, .anyAuthenticated))],
            actor: .admin, at: 100 + AuditRetention.span)
        let kept = try await store.aclAudit(appID: appID, address: news, after: nil, limit: 100)
        #expect(kept.map(\.record.change) == [ACLChange(.grant, ACLEntry(.send, .anyAuthenticated))])
    }

    @Test(
        "Subscribers come with their groups and owned things; deleting a user removes its entries and subscriptions",
        arguments: StoreEngine.allCases)
    func subscribers(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        #expect(try await store.subscribe(appID: appID, address: news, subscriber: .user(ann), at: 1))
        #expect(try await store.subscribe(appID: appID, address: news, subscriber: .user(ann), at: 2) == false)
        #expect(try await store.subscribe(appID: appID, address: news, subscriber: .thing(lamp), at: 3))
        #expect(try await store.isSubscribed(appID: appID, address: news, subscriber: .user(ann)))
        #expect(try await store.isSubscribed(appID: appID, address: news, subscriber: .user(bob)) == false)
        let contexts = try await store.subscriberContexts(appID: appID, address: news)
        #expect(contexts[.user(ann)] == AccessContext(principal: .user(ann), groups: [group], ownedThings: [lamp]))
        #expect(contexts[.thing(lamp)] == AccessContext(principal: .thing(lamp)))
        #expect(contexts.count == 2)
        #expect(try await store.subscribers(appID: appID, address: news) == [.user(ann), .thing(lamp)].sorted())
        #expect(
            try await store.accessContexts(appID: appID, users: [bob, ann])
                == [
                    bob: AccessContext(principal: .user(bob), groups: [group], ownedThings: [lamp]),
                    ann: AccessContext(principal: .user(ann), groups: [group], ownedThings: [lamp]),
                ])
        let unknown = await #expect(throws: KiiError.self) {
            _ = try await store.subscribe(
                appID: appID, address: TopicAddress(scope: .app, name: TopicName(rawValue: "none")!),
                subscriber: .user(ann), at: 1)
        }
        #expect(unknown?.code == .topicNotFound)

        _ = try await store.applyACLChanges(
            appID: appID, address: news, changes: [ACLChange(.grant, ACLEntry(.send, .user(ann)))], actor: .admin, at: 4
        )
        #expect(try await store.deleteUser(appID: appID, id: ann))
        #expect(try await store.topic(appID: appID, address: news)?.1.contains { $0.subject == .user(ann) } == false)
        #expect(
            try await store.subscriberContexts(appID: appID, address: news).keys.sorted { "\($0)" < "\($1)" } == [
                .thing(lamp)
            ])
        #expect(try await store.subscribers(appID: appID, address: news) == [.thing(lamp)])
        #expect(
            try await store.subscribers(
                appID: appID, address: TopicAddress(scope: .app, name: TopicName(rawValue: "none")!)
            ).isEmpty)
        #expect(try await store.unsubscribe(appID: appID, address: news, subscriber: .thing(lamp)))
        #expect(try await store.unsubscribe(appID: appID, address: news, subscriber: .thing(lamp)) == false)
        // Deleting the group deletes its topics.
        #expect(try await store.deleteGroup(appID: appID, id: group))
        #expect(try await store.topic(appID: appID, address: news) == nil)
    }
}
