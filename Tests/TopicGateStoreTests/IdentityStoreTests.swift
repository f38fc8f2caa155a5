import Foundation
import TestSupport
import Testing
import TopicGateCore
import TopicGateStore

/// The store contract: users, tokens, groups, things and installations, on each engine.
@Suite("Store: identity and installations")
struct IdentityStoreTests {
    let appID = AppID("app1")

    func newStore(_ engine: StoreEngine) async throws -> any Store {
        try await engine.newStore(appID: appID)
    }

    func user(_ id: String, loginName: String? = nil, email: String? = nil) -> User {
        User(
            id: UserID(id), appID: appID, loginName: loginName, emailAddress: email, passwordHash: "h", createdAt: 1,
            modifiedAt: 1)
    }

    @Test("Users round-trip with their profile, and are found by each address", arguments: StoreEngine.allCases)
    func users(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        var ann = user("u1", loginName: "Ann", email: "ann@example.com")
        ann.phoneNumber = "+15550100"
        ann.profile = UserProfile(displayName: "Ann", country: "JP", customFields: ["n": 1, "s": "x"])
        try await store.insertUser(ann)
        #expect(try await store.user(appID: appID, id: UserID("u1")) == ann)
        #expect(try await store.user(appID: appID, address: .loginName("ann"))?.id == ann.id)
        #expect(try await store.user(appID: appID, address: .emailAddress("ann@example.com"))?.id == ann.id)
        #expect(try await store.user(appID: appID, address: .phoneNumber("+15550100"))?.id == ann.id)
        #expect(try await store.user(appID: AppID("other"), id: UserID("u1")) == nil)
    }

    @Test(
        "Login names (in any case) and emails are unique within an app: USER_ALREADY_EXISTS",
        arguments: StoreEngine.allCases)
    func uniqueness(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        try await store.insertUser(user("u1", loginName: "Ann", email: "a@example.com"))
        await #expect(throws: KiiError.self) { try await store.insertUser(user("u2", loginName: "ANN")) }
        await #expect(throws: KiiError.self) { try await store.insertUser(user("u3", email: "a@example.com")) }
        try await store.insertUser(user("u4", loginName: "bob"))
        let error = await #expect(throws: KiiError.self) {
            try await store.updateUser(appID: appID, id: UserID("u4")) { $0.loginName = "ann" }
        }
        #expect(error?.code == .userAlreadyExists)
        #expect(error?.context["field"] == "loginName")
    }

    @Test(
        "A user's update applies to the row as it is when the write runs: a disable made since stands, concurrent updates all land, a change that throws writes nothing",
        arguments: StoreEngine.allCases)
    func updatesOnTheCurrentRow(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        let ann = UserID("u1")
        try await store.insertUser(user("u1", loginName: "ann"))
        // Disabled after a request read the user...
        #expect(try await store.setDisabled(appID: appID, .user(ann), disabled: true, at: 2))
        // ...whose update then sees, and keeps, the disable.
        let updated = try await store.updateUser(appID: appID, id: ann) { user in
            #expect(user.disabled)
            user.profile.displayName = "Ann"
            user.modifiedAt = 3
        }
        #expect(updated?.disabled == true)
        #expect(updated == (try await store.user(appID: appID, id: ann)))
        // Twenty updates at once, each adding a field: none is lost.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    _ = try await store.updateUser(appID: appID, id: ann) { user in
                        user.profile.customFields["f\(index)"] = .int(Int64(index))
                    }
                }
            }
            try await group.waitForAll()
        }
        let read = try #require(try await store.user(appID: appID, id: ann))
        #expect(read.profile.customFields.count == 20)
        #expect(read.profile.displayName == "Ann")
        #expect(read.disabled)
        // A change that throws writes nothing, and its error comes back as it is.
        let error = await #expect(throws: KiiError.self) {
            try await store.updateUser(appID: appID, id: ann) { user in
                user.profile.displayName = "Not Ann"
                throw KiiError.invalidInput("no", field: "displayName")
            }
        }
        #expect(error?.code == .invalidInputData)
        #expect(try await store.user(appID: appID, id: ann) == read)
        #expect(try await store.updateUser(appID: appID, id: UserID("nobody")) { $0.loginName = "x" } == nil)
    }

    @Test(
        "A user and its first token are stored in one transaction: a user refused as a duplicate leaves no token",
        arguments: StoreEngine.allCases)
    func userWithToken(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        func token(_ hash: String, _ user: String) -> AccessToken {
            AccessToken(hash: hash, appID: appID, principal: .user(UserID(user)), expiresAt: nil, createdAt: 1)
        }
        try await store.insertUser(user("u1", loginName: "ann"), token: token("t1", "u1"))
        #expect(try await store.tokenHolder(hash: "t1") != nil)
        #expect(try await store.user(appID: appID, id: UserID("u1"))?.loginName == "ann")
        let refused = await #expect(throws: KiiError.self) {
            try await store.insertUser(user("u2", loginName: "Ann"), token: token("t2", "u2"))
        }
        #expect(refused?.code == .userAlreadyExists)
        #expect(try await store.token(hash: "t2") == nil)
        #expect(try await store.user(appID: appID, id: UserID("u2")) == nil)
    }

    @Test("Revoking tokens can keep the one in use; other principals' tokens stay", arguments: StoreEngine.allCases)
    func tokens(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        for hash in ["a", "b"] {
            try await store.insertToken(
                AccessToken(
                    hash: hash, appID: appID, principal: .user(UserID("u1")), expiresAt: nil, createdAt: UnixMillis(1)))
        }
        try await store.insertToken(
            AccessToken(
                hash: "c", appID: appID, principal: .thing(ThingID("t1")), expiresAt: UnixMillis(5),
                createdAt: UnixMillis(1)))
        #expect(try await store.token(hash: "c")?.principal == .thing(ThingID("t1")))
        #expect(try await store.token(hash: "c")?.isValid(at: UnixMillis(5)) == false)
        #expect(try await store.revokeTokens(appID: appID, principal: .user(UserID("u1")), keeping: "a") == 1)
        #expect(try await store.token(hash: "a") != nil)
        #expect(try await store.token(hash: "b") == nil)
        #expect(try await store.token(hash: "c") != nil)
    }

    @Test(
        "Deleting a user removes its tokens, memberships, ownerships and the groups it owns",
        arguments: StoreEngine.allCases)
    func deleteUserCascades(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        try await store.insertUser(user("owner"))
        try await store.insertUser(user("member"))
        try await store.insertToken(
            AccessToken(
                hash: "t", appID: appID, principal: .user(UserID("owner")), expiresAt: nil, createdAt: UnixMillis(1)))
        let group = Group(
            id: GroupID("g"), appID: appID, name: "g", owner: UserID("owner"), createdAt: 1, modifiedAt: 1)
        #expect(try await store.insertGroup(group, members: [UserID("member"), UserID("ghost")]) == [UserID("ghost")])
        let thing = Thing(
            id: ThingID("th"), appID: appID, vendorThingID: "v", passwordHash: "h", fields: ThingFields(), createdAt: 1,
            modifiedAt: 1)
        try await store.insertThing(thing)
        #expect(try await store.addOwner(appID: appID, thing: thing.id, owner: .user(UserID("owner"))))
        #expect(try await store.addOwner(appID: appID, thing: thing.id, owner: .group(GroupID("g"))))
        #expect(try await store.addOwner(appID: appID, thing: thing.id, owner: .group(GroupID("g"))) == false)

        #expect(try await store.deleteUser(appID: appID, id: UserID("owner")))
        #expect(try await store.token(hash: "t") == nil)
        #expect(try await store.group(appID: appID, id: GroupID("g")) == nil)
        #expect(try await store.memberGroupIDs(appID: appID, user: UserID("member")).isEmpty)
        #expect(try await store.owners(appID: appID, thing: thing.id).isEmpty)
        #expect(try await store.deleteUser(appID: appID, id: UserID("owner")) == false)
    }

    @Test(
        "Vendor thing IDs are unique: THING_ALREADY_EXISTS; things are found by either ID",
        arguments: StoreEngine.allCases)
    func things(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        let thing = Thing(
            id: ThingID("th1"), appID: appID, vendorThingID: "lamp", passwordHash: "h",
            fields: try ThingFields(body: ["_thingType": "lamp", "color": "red"]), createdAt: 1, modifiedAt: 1)
        try await store.insertThing(thing)
        #expect(try await store.thing(appID: appID, reference: .vendorThingID("lamp")) == thing)
        var twin = thing
        twin.id = ThingID("th2")
        let error = await #expect(throws: KiiError.self) { try await store.insertThing(twin) }
        #expect(error?.code == .thingAlreadyExists)
    }

    @Test("A new group owner becomes a member; the groups of a user are listed", arguments: StoreEngine.allCases)
    func groups(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        try await store.insertUser(user("a"))
        try await store.insertUser(user("b"))
        var group = Group(id: GroupID("g"), appID: appID, name: "g", owner: UserID("a"), createdAt: 1, modifiedAt: 1)
        _ = try await store.insertGroup(group, members: [])
        group.owner = UserID("b")
        let updated = try await store.updateGroup(appID: appID, id: group.id) { $0.owner = UserID("b") }
        #expect(updated == group)
        #expect(try await store.updateGroup(appID: appID, id: GroupID("none")) { $0.name = "x" } == nil)
        #expect(try await store.members(appID: appID, group: group.id) == [UserID("a"), UserID("b")])
        // The owner never leaves, whatever a caller read before.
        #expect(try await !store.removeMember(appID: appID, group: group.id, user: UserID("b")))
        #expect(try await store.members(appID: appID, group: group.id) == [UserID("a"), UserID("b")])
        #expect(try await store.groups(appID: appID, ownedBy: UserID("b")).map(\.id) == [group.id])
        #expect(try await store.groups(appID: appID, withMember: UserID("a")).map(\.id) == [group.id])
        let duplicate = await #expect(throws: KiiError.self) { _ = try await store.insertGroup(group, members: []) }
        #expect(duplicate?.code == .groupAlreadyExists)
    }

    @Test("The database survives reopening: migrations run once and data stays", arguments: StoreEngine.allCases)
    func reopen(_ engine: StoreEngine) async throws {
        let location = try await engine.newLocation(fromNothing: true)
        let store = try await engine.open(location)
        try await store.insertApp(
            App(id: appID, key: "key", clientID: "client", clientSecretHash: "hash", name: "test", createdAt: 1))
        try await store.insertUser(user("u1", loginName: "ann"))
        let reopened = try await engine.open(location)
        #expect(try await reopened.user(appID: appID, address: .loginName("ann"))?.id == UserID("u1"))
        #expect(try await reopened.apps().map(\.id) == [appID])
    }

    @Test(
        "Credentials are recorded only for a live installation: after a revocation, none",
        arguments: StoreEngine.allCases)
    func credentialsOnlyWhileLive(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        try await store.insertUser(user("u1"))
        let installation = Installation(
            id: InstallationID("i1"), appID: appID, principal: .user(UserID("u1")), deviceType: "MQTT",
            registrationID: "r1", mqttTopic: "t1", development: false, createdAt: UnixMillis(1), tokenHash: "h1")
        try await store.insertInstallation(installation)
        #expect(try await store.recordCredentials(appID: appID, id: installation.id, expiresAt: UnixSeconds(100)))
        let revoked = try await store.revokeInstallations(appID: appID, .one(installation.id), now: 2)
        #expect(revoked.first?.credentialsExpireAt == UnixSeconds(100))
        #expect(
            try await store.recordCredentials(appID: appID, id: installation.id, expiresAt: UnixSeconds(200)) == false)
        #expect(
            try await store.outstandingRevocations(now: UnixSeconds(50)).first?.credentialsExpireAt == UnixSeconds(100))
    }

    @Test(
        "Installs of one device racing end with one installation; another token, flag or principal is another",
        arguments: StoreEngine.allCases)
    func installsOfOneDeviceRacing(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        try await store.insertUser(user("u1"))
        let appID = appID
        @Sendable func device(_ index: Int, token: String? = "h1", development: Bool = false, owner: String = "u1")
            -> Installation
        {
            Installation(
                id: InstallationID("i\(index)"), appID: appID, principal: .user(UserID(owner)), deviceType: "ANDROID",
                registrationID: "fcm-1", mqttTopic: "t\(index)", development: development,
                createdAt: UnixMillis(Int64(index)), tokenHash: token)
        }
        let outcomes = try await allAtOnce(12) { index in try await store.insertInstallation(device(index), limit: 20) }
        let inserted = outcomes.filter { $0 == .inserted }.count
        #expect(inserted == 1)
        let live = try await store.liveInstallations(appID: appID, principals: [.user(UserID("u1"))])
        #expect(live.count == 1)
        #expect(outcomes.allSatisfy { $0 == .inserted || $0 == .existing(live[0]) })
        #expect(try await store.insertInstallation(device(20, token: "h2"), limit: nil) == .inserted)
        #expect(try await store.insertInstallation(device(21, development: true), limit: nil) == .inserted)
        #expect(try await store.insertInstallation(device(22, owner: "u2"), limit: nil) == .inserted)
        _ = try await store.revokeInstallations(appID: appID, .one(live[0].id), now: 100)
        #expect(try await store.insertInstallation(device(23), limit: nil) == .inserted)
    }

    @Test(
        "A thing's password change selects every installation but the caller's, the admin's and onboarding's too",
        arguments: StoreEngine.allCases)
    func allInstalledWithout(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        let thing = Thing(
            id: ThingID("th1"), appID: appID, vendorThingID: "v1", passwordHash: "x", fields: ThingFields(),
            createdAt: 1,
            modifiedAt: 1)
        try await store.insertThing(thing)
        for (id, hash) in [("a", nil), ("b", "h-other"), ("c", "h-mine")] as [(String, String?)] {
            try await store.insertInstallation(
                Installation(
                    id: InstallationID(id), appID: appID, principal: .thing(thing.id), deviceType: "MQTT",
                    registrationID: id,
                    mqttTopic: "topic-\(id)", development: false, createdAt: UnixMillis(1), tokenHash: hash))
        }
        let revoked = try await store.revokeInstallations(
            appID: appID, .allInstalledWithout(.thing(thing.id), keeping: "h-mine"), now: 2)
        #expect(Set(revoked.map(\.id.rawValue)) == ["a", "b"])
        #expect(
            try await store.liveInstallations(appID: appID, principals: [.thing(thing.id)]).map(\.id.rawValue) == ["c"])
    }

    @Test(
        "A push's endpoints are the live MQTT installations of the principals asked for, each principal's oldest first",
        arguments: StoreEngine.allCases)
    func pushEndpoints(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        try await store.insertUser(user("u1"))
        try await store.insertUser(user("u2"))
        let devices: [(id: String, owner: Principal, type: String, created: Int64, broker: String?)] = [
            ("late", .user(UserID("u1")), "MQTT", 30, "b1"),
            ("early", .user(UserID("u1")), "MQTT", 10, nil),
            ("android", .user(UserID("u1")), "ANDROID", 5, nil),
            ("revoked", .user(UserID("u1")), "MQTT", 1, nil),
            ("other", .user(UserID("u2")), "MQTT", 2, nil),
            ("thing", .thing(ThingID("th1")), "MQTT", 3, "b2"),
        ]
        for device in devices {
            try await store.insertInstallation(
                Installation(
                    id: InstallationID(device.id), appID: appID, principal: device.owner, deviceType: device.type,
                    registrationID: device.id, mqttTopic: "topic-\(device.id)", development: false,
                    createdAt: UnixMillis(device.created), tokenHash: nil, broker: device.broker))
        }
        _ = try await store.revokeInstallations(appID: appID, .one(InstallationID("revoked")), now: 40)

        let found = try await store.pushEndpoints(
            appID: appID, principals: [.user(UserID("u1")), .thing(ThingID("th1")), .user(UserID("nobody"))])
        #expect(found.count == 3)
        #expect(
            found.filter { $0.principal == .user(UserID("u1")) } == [
                PushEndpoint(
                    installationID: InstallationID("early"), principal: .user(UserID("u1")), mqttTopic: "topic-early",
                    broker: nil),
                PushEndpoint(
                    installationID: InstallationID("late"), principal: .user(UserID("u1")), mqttTopic: "topic-late",
                    broker: "b1"),
            ])
        #expect(
            found.filter { $0.principal == .thing(ThingID("th1")) } == [
                PushEndpoint(
                    installationID: InstallationID("thing"), principal: .thing(ThingID("th1")),
                    mqttTopic: "topic-thing", broker: "b2")
            ])
        // The same devices as the live installations that receive pushes.
        let live = try await store.liveInstallations(
            appID: appID, principals: [.user(UserID("u1")), .thing(ThingID("th1"))])
        #expect(Set(live.compactMap(\.pushEndpoint)) == Set(found))
        #expect(try await store.pushEndpoints(appID: appID, principals: []).isEmpty)
    }

    @Test(
        "An installation keeps the broker that serves it; live ones are counted per broker; one can be moved",
        arguments: StoreEngine.allCases)
    func installationBrokers(_ engine: StoreEngine) async throws {
        let store = try await newStore(engine)
        try await store.insertUser(user("u1"))
        for (id, broker) in [("a", "one"), ("b", "two"), ("c", "two"), ("d", nil), ("e", "two")] as [(String, String?)]
        {
            try await store.insertInstallation(
                Installation(
                    id: InstallationID(id), appID: appID, principal: .user(UserID("u1")), deviceType: "MQTT",
                    registrationID: id, mqttTopic: "topic-\(id)", development: false, createdAt: UnixMillis(1),
                    tokenHash: nil, broker: broker))
        }
        _ = try await store.revokeInstallations(appID: appID, .one(InstallationID("e")), now: 2)
        #expect(try await store.liveInstallationsByBroker() == ["one": 1, "two": 2, nil: 1])
        #expect(try await store.installation(appID: appID, id: InstallationID("b"))?.broker == "two")
        #expect(try await store.installation(appID: appID, id: InstallationID("d"))?.broker == nil)
        try await store.assignBroker(appID: appID, id: InstallationID("b"), broker: "one")
        #expect(try await store.liveInstallation(mqttTopic: "topic-b")?.broker == "one")
        #expect(try await store.liveInstallationsByBroker() == ["one": 2, "two": 1, nil: 1])
    }
}
