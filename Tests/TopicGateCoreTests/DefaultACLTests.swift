import Testing
import TopicGateCore

@Suite("Default topic ACLs and topic permissions")
struct DefaultACLTests {
    static let alice = UserID("alice")
    static let bob = UserID("bob")
    static let family = GroupID("family")
    static let lamp = ThingID("lamp")

    static func topic(_ scope: TopicScope, creator: Principal) -> Topic {
        Topic(
            appID: AppID("app"), address: TopicAddress(scope: scope, name: TopicName(rawValue: "t")!), creator: creator,
            createdAt: 0)
    }

    @Test("App scope: any authenticated user subscribes; nobody but the admin sends")
    func appScope() {
        #expect(
            DefaultACL.entries(scope: .app, creator: .admin) == [
                ACLEntry(.subscribe, .anyAuthenticated, isDefault: true)
            ])
    }

    @Test("Group scope: creator and group × both actions (four entries, as Kii's live test counts)")
    func groupScope() {
        let entries = DefaultACL.entries(scope: .group(Self.family), creator: .user(Self.alice))
        #expect(
            Set(entries) == [
                ACLEntry(.subscribe, .user(Self.alice), isDefault: true),
                ACLEntry(.send, .user(Self.alice), isDefault: true),
                ACLEntry(.subscribe, .group(Self.family), isDefault: true),
                ACLEntry(.send, .group(Self.family), isDefault: true),
            ])
    }

    @Test("User scope: the user × both actions (two entries), once even when the user created it")
    func userScope() {
        #expect(DefaultACL.entries(scope: .user(Self.alice), creator: .user(Self.alice)).count == 2)
        #expect(DefaultACL.entries(scope: .user(Self.alice), creator: .admin).count == 2)
    }

    @Test("Thing scope: the thing and the creating owner")
    func thingScope() {
        let entries = DefaultACL.entries(scope: .thing(Self.lamp), creator: .user(Self.alice))
        #expect(Set(entries.map(\.subject)) == [.thing(Self.lamp), .user(Self.alice)])
    }

    @Test("The creator's and the scope owner's entries are protected; the group's and any-authenticated are not")
    func protection() {
        let groupTopic = Self.topic(.group(Self.family), creator: .user(Self.alice))
        #expect(DefaultACL.isProtected(ACLEntry(.send, .user(Self.alice)), of: groupTopic, groupOwner: Self.bob))
        #expect(DefaultACL.isProtected(ACLEntry(.send, .user(Self.bob)), of: groupTopic, groupOwner: Self.bob))
        #expect(!DefaultACL.isProtected(ACLEntry(.send, .group(Self.family)), of: groupTopic, groupOwner: Self.bob))
        #expect(!DefaultACL.isProtected(ACLEntry(.send, .user(UserID("carol"))), of: groupTopic, groupOwner: Self.bob))
        let appTopic = Self.topic(.app, creator: .admin)
        #expect(!DefaultACL.isProtected(ACLEntry(.subscribe, .anyAuthenticated), of: appTopic, groupOwner: nil))
        let thingTopic = Self.topic(.thing(Self.lamp), creator: .user(Self.alice))
        #expect(DefaultACL.isProtected(ACLEntry(.send, .thing(Self.lamp)), of: thingTopic, groupOwner: nil))
    }

    @Test("Who creates, lists and manages topics")
    func permissions() {
        let alice = AccessContext(principal: .user(Self.alice))
        let member = AccessContext(principal: .user(Self.alice), groups: [Self.family])
        let owner = AccessContext(principal: .user(Self.alice), ownedThings: [Self.lamp])
        #expect(!TopicPermissions.mayCreate(alice, in: .app))
        #expect(TopicPermissions.mayCreate(AccessContext(principal: .admin), in: .app))
        #expect(TopicPermissions.mayList(alice, in: .app))
        #expect(!TopicPermissions.mayList(AccessContext(principal: .anonymous), in: .app))
        #expect(!TopicPermissions.mayCreate(alice, in: .group(Self.family)))
        #expect(TopicPermissions.mayCreate(member, in: .group(Self.family)))
        #expect(TopicPermissions.mayCreate(alice, in: .user(Self.alice)))
        #expect(!TopicPermissions.mayCreate(alice, in: .user(Self.bob)))
        #expect(TopicPermissions.mayCreate(owner, in: .thing(Self.lamp)))
        #expect(TopicPermissions.mayCreate(AccessContext(principal: .thing(Self.lamp)), in: .thing(Self.lamp)))
        #expect(!TopicPermissions.mayCreate(alice, in: .thing(Self.lamp)))

        let groupTopic = Self.topic(.group(Self.family), creator: .user(Self.bob))
        #expect(
            TopicPermissions.mayManage(
                AccessContext(principal: .user(Self.bob), groups: [Self.family]), groupTopic, groupOwner: Self.alice))
        // A creator who left the group manages it no more.
        #expect(
            !TopicPermissions.mayManage(AccessContext(principal: .user(Self.bob)), groupTopic, groupOwner: Self.alice))
        let entry = ACLEntry(.send, .user(Self.bob))
        #expect(DefaultACL.isProtected(entry, of: groupTopic, groupOwner: Self.alice, creatorBelongs: true))
        #expect(!DefaultACL.isProtected(entry, of: groupTopic, groupOwner: Self.alice, creatorBelongs: false))
        #expect(TopicPermissions.mayManage(alice, groupTopic, groupOwner: Self.alice))
        #expect(!TopicPermissions.mayManage(member, groupTopic, groupOwner: UserID("carol")))
    }

    @Test("Operators' topic names", arguments: ["app/news", "group/g1/chat", "user/u-1/inbox", "thing/th.1/alerts"])
    func addresses(text: String) throws {
        #expect(try #require(TopicAddress(parsing: text)).description == text)
    }

    @Test(
        "Malformed topic names are refused",
        arguments: [
            "app", "app/", "news", "group/chat", "app/a b", "robot/x/y", "app/\(String(repeating: "x", count: 65))",
        ])
    func badAddresses(text: String) {
        #expect(TopicAddress(parsing: text) == nil)
    }

    @Test("Subjects parse from the path form")
    func subjects() {
        #expect(ACLSubject(parsing: "UserID:ANY_AUTHENTICATED_USER") == .anyAuthenticated)
        #expect(ACLSubject(parsing: "userid:ANONYMOUS_USER") == .anonymous)
        #expect(ACLSubject(parsing: "GroupID:g") == .group(GroupID("g")))
        #expect(ACLSubject(parsing: "ThingID:th.1") == .thing(ThingID("th.1")))
        #expect(ACLSubject(parsing: "RobotID:x") == nil)
        #expect(ACLSubject(parsing: "UserID:a/b") == nil)
    }
}
