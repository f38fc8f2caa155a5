import Foundation
import Synchronization
import Testing
import TopicGateCore
import TopicGateStore

/// The PostgreSQL store's change feed carries, to every gateway, what moved a generation on the
/// gateway that committed it: `access` for what decides who may do what (token holders and apps
/// among it), `relations` when memberships or ownerships changed, `listeners` when only
/// subscriptions or topics did, `installations` for which devices a push goes to; nothing for a
/// write that moves none.
@Suite("Store: the change feed (PostgreSQL)")
struct ChangeFeedTests {
    let appID = AppID("app1")

    /// What arrives on `listener`'s feed, collected.
    final class Heard: Sendable {
        let changes = Mutex<[StoreChange]>([])
        var all: [StoreChange] { changes.withLock { $0 } }
    }

    @Test(
        "A change through one store reaches the other's feed as access, relations, listeners or installations; a new user does not"
    )
    func changesTravel() async throws {
        let location = try await StoreEngine.postgres.newLocation()
        let writer = try await StoreEngine.postgres.open(location)
        let listener = try await StoreEngine.postgres.open(location)
        try await writer.insertApp(
            App(id: appID, key: "key", clientID: "client", clientSecretHash: "hash", name: "test", createdAt: 1))
        let feed = try #require(listener as? any StoreChangeFeed)
        let heard = Heard()
        let following = Task {
            await feed.followChanges(silence: .seconds(30)) { change in
                heard.changes.withLock { $0.append(change) }
            }
        }
        defer { following.cancel() }
        // Listening has begun once `unknown` arrived.
        try await eventually { heard.all.contains(.unknown) }

        let ann = UserID("ann")
        try await writer.insertUser(User(id: ann, appID: appID, passwordHash: "h", createdAt: 1, modifiedAt: 1))
        try await writer.insertToken(
            AccessToken(hash: "t", appID: appID, principal: .user(ann), expiresAt: nil, createdAt: 1))
        try await writer.touchUser(appID: appID, id: ann, at: 5)
        try await (writer as? any StoreChangeFeed)?.sendHeartbeat()
        try await eventually { heard.all.contains(.heartbeat) }
        #expect(!heard.all.contains(.access) && !heard.all.contains(.installations))

        // A subscription leaves principals and what they belong to standing: `listeners` only.
        let news = TopicAddress(scope: .app, name: TopicName(rawValue: "news")!)
        try await writer.insertTopic(Topic(appID: appID, address: news, creator: .admin, createdAt: 2), entries: [])
        _ = try await writer.subscribe(appID: appID, address: news, subscriber: .user(ann), at: 2)
        try await eventually { heard.all.contains(.listeners) }
        #expect(!heard.all.contains(.relations) && !heard.all.contains(.access))

        // A membership leaves token holders standing: `relations`, not `access`.
        let group = GroupID("g")
        _ = try await writer.insertGroup(
            Group(id: group, appID: appID, name: "g", owner: ann, createdAt: 2, modifiedAt: 2), members: [])
        _ = try await writer.addMember(appID: appID, group: group, user: ann)
        try await eventually { heard.all.contains(.relations) }
        #expect(!heard.all.contains(.access))

        _ = try await writer.setDisabled(appID: appID, .user(ann), disabled: true, at: 6)
        try await eventually { heard.all.contains(.access) }
        #expect(!heard.all.contains(.installations))

        try await writer.insertInstallation(
            Installation(
                id: InstallationID("i1"), appID: appID, principal: .user(ann), deviceType: "MQTT",
                registrationID: "i1", mqttTopic: "topic-i1", development: false, createdAt: 7, tokenHash: nil))
        try await eventually { heard.all.contains(.installations) }
    }

    @Test("A change reads back from its payload; a payload a gateway does not know drops everything")
    func payloads() throws {
        let news = TopicAddress(scope: .app, name: try #require(TopicName(rawValue: "news")))
        let changes: [StoreChange] = [
            .topic(appID, news), .principalDeleted(appID), .app(appID), .access, .relations, .listeners, .installations,
            .unknown, .heartbeat,
        ]
        for change in changes { #expect(StoreChange(payload: change.payload) == change) }
        // A gateway's own ACL change is marked with its origin; it reads back as the topic.
        #expect(StoreChange(payload: "topic \(appID.rawValue) \(news) 1x2y.7") == .topic(appID, news))
        #expect(StoreChange(payload: "memberships") == .unknown)
        #expect(StoreChange(payload: "relations now") == .unknown)
    }

    @Test(
        "A store's own ACL change that returned does not come back on its own feed; the other stores' feeds hear it, and a change planned under the topic's lock comes back too"
    )
    func ownChangesAreNotEchoed() async throws {
        let location = try await StoreEngine.postgres.newLocation()
        let writer = try await StoreEngine.postgres.open(location)
        let listener = try await StoreEngine.postgres.open(location)
        try await writer.insertApp(
            App(id: appID, key: "key", clientID: "client", clientSecretHash: "hash", name: "test", createdAt: 1))
        let ann = UserID("ann")
        try await writer.insertUser(User(id: ann, appID: appID, passwordHash: "h", createdAt: 1, modifiedAt: 1))
        let news = TopicAddress(scope: .app, name: TopicName(rawValue: "news")!)
        try await writer.insertTopic(Topic(appID: appID, address: news, creator: .admin, createdAt: 2), entries: [])
        let (byWriter, byListener) = (Heard(), Heard())
        var following: [Task<Void, Never>] = []
        for (store, heard) in [(writer, byWriter), (listener, byListener)] {
            let feed = try #require(store as? any StoreChangeFeed)
            following.append(
                Task {
                    await feed.followChanges(silence: .seconds(30)) { change in
                        heard.changes.withLock { $0.append(change) }
                    }
                })
        }
        defer { for task in following { task.cancel() } }
        try await eventually { byWriter.all.contains(.unknown) && byListener.all.contains(.unknown) }

        // Planned on the entries read under the topic's lock (as the first change of a store
        // is, which also prunes the audit): not marked, heard by the writer too.
        let grant = ACLChange(.grant, ACLEntry(.send, .user(ann)))
        _ = try await writer.applyACLChanges(appID: appID, address: news, changes: [grant], actor: .admin, at: 3)
        try await eventually {
            byWriter.all.contains(.topic(appID, news)) && byListener.all.contains(.topic(appID, news))
        }
        for heard in [byWriter, byListener] { heard.changes.withLock { $0.removeAll() } }

        // Planned on the entries the writer knew: one statement, marked as the writer's own.
        _ = try await writer.applyACLChanges(
            appID: appID, address: news, changes: [ACLChange(.revoke, grant.entry)], actor: .admin, at: 4,
            known: [grant.entry])
        // A subscription's notice comes after the change's on every feed (commit order).
        _ = try await writer.subscribe(appID: appID, address: news, subscriber: .user(ann), at: 5)
        try await eventually { byWriter.all.contains(.listeners) && byListener.all.contains(.listeners) }
        #expect(byListener.all.contains(.topic(appID, news)))
        #expect(!byWriter.all.contains(.topic(appID, news)))
    }

    /// Polls `condition` for up to 10 s.
    func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TimedOut() }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    struct TimedOut: Error {}
}
