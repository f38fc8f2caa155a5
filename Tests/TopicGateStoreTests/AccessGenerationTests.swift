import Foundation
import Synchronization
import TestSupport
import Testing
import TopicGateCore
import TopicGateStore

/// A store's access generation: every committed change that can alter a decision moves it on
/// before the write returns (the caches of token holders, access contexts and subscribers rely
/// on it); new principals, new tokens and last-seen times do not. The same on both engines (the
/// PostgreSQL store judges its statements by the same rules; its generation starts untrusted,
/// until its change feed is heard, and is trusted here by hand).
@Suite("Store: access generation")
struct AccessGenerationTests {
    let appID = AppID("app1")
    let ann = UserID("ann")
    let bob = UserID("bob")
    let group = GroupID("g")
    let lamp = ThingID("lamp")

    var news: TopicAddress { TopicAddress(scope: .app, name: TopicName(rawValue: "news")!) }

    /// A store with users ann and bob, ann's token, ann's group g, thing lamp and the app topic
    /// news.
    func newStore(_ engine: StoreEngine) async throws -> (any Store, AccessGeneration) {
        let store = try await engine.newStore(appID: appID)
        let generation = store.accessGeneration
        for generation in store.caching.generations.all { generation.trust() }
        for id in [ann, bob] {
            try await store.insertUser(User(id: id, appID: appID, passwordHash: "h", createdAt: 1, modifiedAt: 1))
        }
        try await store.insertToken(
            AccessToken(hash: "t", appID: appID, principal: .user(ann), expiresAt: nil, createdAt: UnixMillis(1)))
        _ = try await store.insertGroup(
            Group(id: group, appID: appID, name: "g", owner: ann, createdAt: 1, modifiedAt: 1), members: [])
        try await store.insertThing(
            Thing(
                id: lamp, appID: appID, vendorThingID: "v-lamp", passwordHash: "h", fields: ThingFields(), createdAt: 1,
                modifiedAt: 1))
        try await store.insertTopic(Topic(appID: appID, address: news, creator: .admin, createdAt: 1), entries: [])
        return (store, generation)
    }

    /// Whether `change` moved the generation on by the time it returned (`watching`: the access
    /// generation, or another of the store's).
    func moves(
        _ engine: StoreEngine, watching: KeyPath<StoreGenerations, AccessGeneration> = \.access,
        _ change: (any Store) async throws -> Void
    ) async throws -> Bool {
        let (store, _) = try await newStore(engine)
        let generation = store.caching.generations[keyPath: watching]
        let before = generation.current
        try await change(store)
        return generation.current != before
    }

    @Test("Revoking tokens, disabling or deleting a user or thing moves it on", arguments: StoreEngine.allCases)
    func principals(engine: StoreEngine) async throws {
        #expect(
            try await moves(engine) { _ = try await $0.revokeTokens(appID: appID, principal: .user(ann), keeping: nil) }
        )
        #expect(
            try await moves(engine) { _ = try await $0.setDisabled(appID: appID, .user(ann), disabled: true, at: 2) })
        #expect(
            try await moves(engine) { _ = try await $0.setDisabled(appID: appID, .thing(lamp), disabled: true, at: 2) })
        #expect(try await moves(engine) { _ = try await $0.deleteUser(appID: appID, id: ann) })
        #expect(try await moves(engine) { _ = try await $0.deleteThing(appID: appID, id: lamp) })
    }

    @Test("Any update of a user but its last-seen time moves it on", arguments: StoreEngine.allCases)
    func userUpdates(engine: StoreEngine) async throws {
        #expect(
            try await moves(engine) { store in
                _ = try await store.updateUser(appID: appID, id: ann) { $0.profile.displayName = "Ann" }
            })
        #expect(try await !moves(engine) { try await $0.touchUser(appID: appID, id: ann, at: 5) })
    }

    @Test("Memberships, ownerships, subscriptions and topics move it on", arguments: StoreEngine.allCases)
    func memberships(engine: StoreEngine) async throws {
        #expect(try await moves(engine) { _ = try await $0.addMember(appID: appID, group: group, user: bob) })
        #expect(try await moves(engine) { _ = try await $0.deleteGroup(appID: appID, id: group) })
        #expect(try await moves(engine) { _ = try await $0.addOwner(appID: appID, thing: lamp, owner: .user(ann)) })
        #expect(
            try await moves(engine) {
                _ = try await $0.subscribe(appID: appID, address: news, subscriber: .user(ann), at: 2)
            })
        #expect(try await moves(engine) { _ = try await $0.deleteTopic(appID: appID, address: news) })
    }

    @Test(
        "Token holders and apps: revoking tokens, disabling, deleting or updating a user or thing, or updating an app moves the identity generation on; a membership, an ownership, a subscription, a topic or an ACL change does not",
        arguments: StoreEngine.allCases)
    func identity(engine: StoreEngine) async throws {
        func movesIdentity(_ change: (any Store) async throws -> Void) async throws -> Bool {
            try await moves(engine, watching: \.identity, change)
        }
        #expect(
            try await movesIdentity { _ = try await $0.revokeTokens(appID: appID, principal: .user(ann), keeping: nil) }
        )
        #expect(
            try await movesIdentity { _ = try await $0.setDisabled(appID: appID, .user(ann), disabled: true, at: 2) })
        #expect(
            try await movesIdentity { _ = try await $0.setDisabled(appID: appID, .thing(lamp), disabled: true, at: 2) })
        #expect(try await movesIdentity { _ = try await $0.deleteUser(appID: appID, id: ann) })
        #expect(try await movesIdentity { _ = try await $0.deleteThing(appID: appID, id: lamp) })
        #expect(
            try await movesIdentity { store in
                _ = try await store.updateUser(appID: appID, id: ann) { $0.profile.displayName = "Ann" }
            })
        #expect(
            try await movesIdentity { store in
                var app = try #require(try await store.app(id: appID))
                app.clientSecretHash = "new"
                try await store.updateApp(app)
            })
        #expect(try await !movesIdentity { try await $0.touchUser(appID: appID, id: ann, at: 5) })
        #expect(try await !movesIdentity { _ = try await $0.addMember(appID: appID, group: group, user: bob) })
        #expect(try await !movesIdentity { _ = try await $0.deleteGroup(appID: appID, id: group) })
        #expect(try await !movesIdentity { _ = try await $0.addOwner(appID: appID, thing: lamp, owner: .user(ann)) })
        #expect(
            try await !movesIdentity {
                _ = try await $0.subscribe(appID: appID, address: news, subscriber: .user(ann), at: 2)
            })
        #expect(
            try await !movesIdentity {
                _ = try await $0.applyACLChanges(
                    appID: appID, address: news, changes: [ACLChange(.grant, ACLEntry(.send, .user(bob)))],
                    actor: .user(ann), at: 2)
            })
        #expect(try await !movesIdentity { _ = try await $0.deleteTopic(appID: appID, address: news) })
        // What moves the identity generation moves the access generation too.
        #expect(
            try await moves(engine) { _ = try await $0.setDisabled(appID: appID, .user(ann), disabled: true, at: 2) })
    }

    @Test(
        "Principals and what they belong to or own: a membership, a group, an ownership, an end node, a disabled user or a deleted thing moves the relations generation on; a subscription, a topic or an ACL change does not (a subscription or a topic moves only the access generation, an ACL change neither: it tells the topic cache)",
        arguments: StoreEngine.allCases)
    func relations(engine: StoreEngine) async throws {
        func movesRelations(_ change: (any Store) async throws -> Void) async throws -> Bool {
            try await moves(engine, watching: \.relations, change)
        }
        #expect(try await movesRelations { _ = try await $0.addMember(appID: appID, group: group, user: bob) })
        #expect(try await movesRelations { _ = try await $0.deleteGroup(appID: appID, id: group) })
        #expect(try await movesRelations { _ = try await $0.addOwner(appID: appID, thing: lamp, owner: .user(ann)) })
        #expect(
            try await movesRelations { _ = try await $0.setDisabled(appID: appID, .user(ann), disabled: true, at: 2) })
        #expect(try await movesRelations { _ = try await $0.deleteThing(appID: appID, id: lamp) })
        #expect(
            try await movesRelations { store in
                try await store.insertThing(
                    Thing(
                        id: ThingID("hub"), appID: appID, vendorThingID: "v-hub", passwordHash: "h",
                        fields: ThingFields(), createdAt: 1, modifiedAt: 1))
                _ = try await store.attachEndNode(appID: appID, gateway: ThingID("hub"), endNode: lamp, at: 2)
            })
        let subscribe: (any Store) async throws -> Void = {
            _ = try await $0.subscribe(appID: appID, address: news, subscriber: .user(ann), at: 2)
        }
        let grant: (any Store) async throws -> Void = {
            _ = try await $0.applyACLChanges(
                appID: appID, address: news, changes: [ACLChange(.grant, ACLEntry(.send, .user(bob)))],
                actor: .user(ann), at: 2)
        }
        let deleteTopic: (any Store) async throws -> Void = {
            _ = try await $0.deleteTopic(appID: appID, address: news)
        }
        #expect(try await !movesRelations(subscribe))
        #expect(try await !movesRelations(grant))
        #expect(try await !movesRelations(deleteTopic))
        // Subscribers are kept under the access generation: a subscription and a topic move it.
        #expect(try await moves(engine, subscribe))
        #expect(try await moves(engine, deleteTopic))
        // An ACL change, planned on the entries read under the topic's lock or on the entries the
        // caller knew (in one statement on PostgreSQL), leaves who listens where as it was.
        #expect(try await !moves(engine, grant))
        #expect(
            try await !moves(engine) {
                _ = try await $0.applyACLChanges(
                    appID: appID, address: news, changes: [ACLChange(.grant, ACLEntry(.send, .user(bob)))],
                    actor: .user(ann), at: 2, known: [])
            })
    }

    @Test("New users and tokens and a last-seen time leave it where it was", arguments: StoreEngine.allCases)
    func inserts(engine: StoreEngine) async throws {
        #expect(
            try await !moves(engine) {
                try await $0.insertUser(
                    User(id: UserID("cy"), appID: appID, passwordHash: "h", createdAt: 1, modifiedAt: 1))
            })
        #expect(
            try await !moves(engine) {
                try await $0.insertToken(
                    AccessToken(
                        hash: "t2", appID: appID, principal: .user(ann), expiresAt: nil, createdAt: UnixMillis(1)))
            })
        #expect(try await !moves(engine) { try await $0.touchUser(appID: appID, id: ann, at: 5) })
    }

    @Test(
        "Attaching an end node to a gateway or detaching it moves it on (its commands change course); the gateway's report of its connection does not",
        arguments: StoreEngine.allCases)
    func endNodes(engine: StoreEngine) async throws {
        let hub = ThingID("hub")
        func withHub(_ store: any Store) async throws {
            try await store.insertThing(
                Thing(
                    id: hub, appID: appID, vendorThingID: "v-hub", passwordHash: "h", fields: ThingFields(),
                    createdAt: 1, modifiedAt: 1))
        }
        #expect(
            try await moves(engine) { store in
                try await withHub(store)
                _ = try await store.attachEndNode(appID: appID, gateway: hub, endNode: lamp, at: 2)
            })
        let (store, generation) = try await newStore(engine)
        try await withHub(store)
        _ = try await store.attachEndNode(appID: appID, gateway: hub, endNode: lamp, at: 2)
        var before = generation.current
        _ = try await store.setEndNodeConnection(appID: appID, gateway: hub, endNode: lamp, online: true, at: 3)
        #expect(generation.current == before)
        before = generation.current
        _ = try await store.detachEndNode(appID: appID, gateway: hub, endNode: lamp)
        #expect(generation.current != before)
    }

    @Test("Any update of a thing moves it on", arguments: StoreEngine.allCases)
    func thingUpdates(engine: StoreEngine) async throws {
        #expect(
            try await moves(engine) { store in
                let thing = try #require(try await store.thing(appID: appID, reference: .id(lamp)))
                try await store.updateThingCredentials(
                    appID: appID, id: lamp, vendorThingID: "v-lamp-2", passwordHash: thing.passwordHash, at: 5)
            })
    }

    /// Whether `change` moved the installation generation on by the time it returned (ann has
    /// one MQTT installation, `i1`, on broker `one`).
    func movesDevices(_ engine: StoreEngine, _ change: (any Store) async throws -> Void) async throws -> Bool {
        let (store, access) = try await newStore(engine)
        let generation = store.installationGeneration
        try await store.insertInstallation(
            Installation(
                id: InstallationID("i1"), appID: appID, principal: .user(ann), deviceType: "MQTT",
                registrationID: "i1", mqttTopic: "topic-i1", development: false, createdAt: UnixMillis(1),
                tokenHash: nil, broker: "one"))
        let (before, accessBefore) = (generation.current, access.current)
        try await change(store)
        // Devices are not access: the access generation stays where it was.
        #expect(access.current == accessBefore)
        return generation.current != before
    }

    @Test(
        "Which devices a push goes to: an installation registered, revoked or moved to another broker moves the installation generation on; a last-seen time or a credentials' expiry does not",
        arguments: StoreEngine.allCases)
    func installations(engine: StoreEngine) async throws {
        #expect(
            try await movesDevices(engine) {
                try await $0.insertInstallation(
                    Installation(
                        id: InstallationID("i2"), appID: appID, principal: .user(ann), deviceType: "MQTT",
                        registrationID: "i2", mqttTopic: "topic-i2", development: false, createdAt: UnixMillis(2),
                        tokenHash: nil))
            })
        let i1 = InstallationID("i1")
        #expect(try await movesDevices(engine) { _ = try await $0.revokeInstallations(appID: appID, .one(i1), now: 2) })
        #expect(
            try await movesDevices(engine) {
                _ = try await $0.revokeInstallations(appID: appID, .principal(.user(ann)), now: 2)
            })
        #expect(try await movesDevices(engine) { try await $0.assignBroker(appID: appID, id: i1, broker: "two") })
        #expect(try await !movesDevices(engine) { try await $0.recordLastSeen(["topic-i1": UnixMillis(5)]) })
        #expect(
            try await !movesDevices(engine) {
                _ = try await $0.recordCredentials(appID: appID, id: i1, expiresAt: UnixSeconds(99))
            })
    }

    @Test(
        "A write that changed nothing watched, or was refused, leaves it where it was", arguments: StoreEngine.allCases)
    func unchanged(engine: StoreEngine) async throws {
        // Removing a member who is not one deletes no row.
        #expect(try await !moves(engine) { _ = try await $0.removeMember(appID: appID, group: group, user: bob) })
        // A second subscription of the same subscriber changes no row.
        let (store, generation) = try await newStore(engine)
        #expect(try await store.subscribe(appID: appID, address: news, subscriber: .user(ann), at: 2))
        let before = generation.current
        #expect(try await !store.subscribe(appID: appID, address: news, subscriber: .user(ann), at: 3))
        #expect(generation.current == before)
        // A subscription to a topic that does not exist is refused inside its transaction.
        let missing = TopicAddress(scope: .app, name: TopicName(rawValue: "missing")!)
        let refusal = await #expect(throws: KiiError.self) {
            _ = try await store.subscribe(appID: appID, address: missing, subscriber: .user(ann), at: 4)
        }
        #expect(refusal?.code == .topicNotFound)
        #expect(generation.current == before)
    }

    /// What `change` told the topic cache (`StoreGenerations.topics`) by the time it returned.
    func told(_ engine: StoreEngine, _ change: (any Store) async throws -> Void) async throws -> Set<TopicChange> {
        let (store, _) = try await newStore(engine)
        let heard = Mutex<Set<TopicChange>>([])
        store.caching.generations.topics.listen { change in heard.withLock { _ = $0.insert(change) } }
        try await change(store)
        return heard.withLock { $0 }
    }

    @Test(
        "A topic created, deleted or its ACL changed tells the topic cache which, before returning; a principal deleted tells it all",
        arguments: StoreEngine.allCases)
    func topicChanges(engine: StoreEngine) async throws {
        let hot = TopicAddress(scope: .app, name: TopicName(rawValue: "hot")!)
        #expect(
            try await told(engine) {
                try await $0.insertTopic(Topic(appID: appID, address: hot, creator: .admin, createdAt: 2), entries: [])
            } == [.topic(appID, hot)])
        #expect(
            try await told(engine) {
                _ = try await $0.applyACLChanges(
                    appID: appID, address: news, changes: [ACLChange(.grant, ACLEntry(.send, .user(bob)))],
                    actor: .admin, at: 2)
            } == [.topic(appID, news)])
        #expect(
            try await told(engine) { _ = try await $0.deleteTopic(appID: appID, address: news) } == [
                .topic(appID, news)
            ])
        // Its topics and every entry naming it go with a user, a group or a thing.
        #expect(try await told(engine) { _ = try await $0.deleteUser(appID: appID, id: ann) } == [.all])
        #expect(try await told(engine) { _ = try await $0.deleteGroup(appID: appID, id: group) } == [.all])
        #expect(try await told(engine) { _ = try await $0.deleteThing(appID: appID, id: lamp) } == [.all])
        // What leaves every topic's entries as they were tells it nothing.
        #expect(
            try await told(engine) {
                _ = try await $0.subscribe(appID: appID, address: news, subscriber: .user(ann), at: 2)
            } == [])
        #expect(try await told(engine) { _ = try await $0.addMember(appID: appID, group: group, user: bob) } == [])
    }

    @Test("Another process's commit on the same SQLite file tells the topic cache all, soon")
    func foreignTopicChange() async throws {
        let location = try await StoreEngine.sqlite.newLocation()
        let mine = try await StoreEngine.sqlite.open(location)
        try await mine.insertApp(
            App(id: appID, key: "key", clientID: "client", clientSecretHash: "hash", name: "test", createdAt: 1))
        try await mine.insertTopic(Topic(appID: appID, address: news, creator: .admin, createdAt: 1), entries: [])
        let heard = Mutex<Set<TopicChange>>([])
        mine.caching.generations.topics.listen { change in heard.withLock { _ = $0.insert(change) } }
        // The CLI, or a second gateway, on the same file.
        let other = try await StoreEngine.sqlite.open(location)
        _ = try await other.applyACLChanges(
            appID: appID, address: news, changes: [ACLChange(.grant, ACLEntry(.send, .anyAuthenticated))],
            actor: .admin, at: 2)
        #expect(try await eventually(timeout: .seconds(5)) { heard.withLock { $0.contains(.all) } })
    }
}
