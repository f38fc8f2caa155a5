import Testing
import TopicGateCore

@Suite("AccessPolicy.evaluate")
struct AccessPolicyTests {
    static let alice = UserID("alice")
    static let bob = UserID("bob")
    static let family = GroupID("family")
    static let lamp = ThingID("lamp")

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let context: AccessContext
        let action: ACLAction
        let scope: TopicScope
        let entries: [ACLEntry]
        let allowed: Bool
        let rule: String
        var testDescription: String { name }
    }

    static func topic(_ scope: TopicScope) -> Topic {
        Topic(
            appID: AppID("app"), address: TopicAddress(scope: scope, name: TopicName(rawValue: "t")!), creator: .admin,
            createdAt: 0)
    }

    static let user = AccessContext(principal: .user(alice))
    static let member = AccessContext(principal: .user(alice), groups: [family])
    static let thing = AccessContext(principal: .thing(lamp))
    static let anonymous = AccessContext(principal: .anonymous)
    static let owner = AccessContext(principal: .user(alice), ownedThings: [lamp])

    static let cases: [Case] = [
        // the admin
        Case(
            name: "admin sends anywhere", context: AccessContext(principal: .admin), action: .send, scope: .app,
            entries: [], allowed: true, rule: "admin"),
        // user subjects × both actions
        Case(
            name: "user entry grants subscribe", context: user, action: .subscribe, scope: .app,
            entries: [ACLEntry(.subscribe, .user(alice))], allowed: true, rule: "entry"),
        Case(
            name: "user entry grants send", context: user, action: .send, scope: .app,
            entries: [ACLEntry(.send, .user(alice))], allowed: true, rule: "entry"),
        Case(
            name: "user entry for the other action does not", context: user, action: .send, scope: .app,
            entries: [ACLEntry(.subscribe, .user(alice))], allowed: false, rule: "no_entry"),
        Case(
            name: "another user's entry does not", context: user, action: .send, scope: .app,
            entries: [ACLEntry(.send, .user(bob))], allowed: false, rule: "no_entry"),
        // group subjects
        Case(
            name: "member through group entry", context: member, action: .send, scope: .group(family),
            entries: [ACLEntry(.send, .group(family))], allowed: true, rule: "group_entry"),
        Case(
            name: "membership removed: no longer", context: user, action: .send, scope: .group(family),
            entries: [ACLEntry(.send, .group(family))], allowed: false, rule: "no_entry"),
        Case(
            name: "a thing is never a group member", context: AccessContext(principal: .thing(lamp), groups: [family]),
            action: .send, scope: .app, entries: [ACLEntry(.send, .group(family))], allowed: false, rule: "no_entry"),
        // thing subjects
        Case(
            name: "thing entry grants the thing", context: thing, action: .subscribe, scope: .thing(lamp),
            entries: [ACLEntry(.subscribe, .thing(lamp))], allowed: true, rule: "entry"),
        Case(
            name: "thing entry does not grant a user", context: user, action: .subscribe, scope: .app,
            entries: [ACLEntry(.subscribe, .thing(lamp))], allowed: false, rule: "no_entry"),
        // special subjects
        Case(
            name: "any-authenticated grants users", context: user, action: .subscribe, scope: .app,
            entries: [ACLEntry(.subscribe, .anyAuthenticated)], allowed: true, rule: "entry"),
        Case(
            name: "any-authenticated grants things", context: thing, action: .subscribe, scope: .app,
            entries: [ACLEntry(.subscribe, .anyAuthenticated)], allowed: true, rule: "entry"),
        Case(
            name: "any-authenticated does not grant anonymous", context: anonymous, action: .subscribe, scope: .app,
            entries: [ACLEntry(.subscribe, .anyAuthenticated)], allowed: false, rule: "no_entry"),
        Case(
            name: "anonymous entry grants anonymous", context: anonymous, action: .send, scope: .app,
            entries: [ACLEntry(.send, .anonymous)], allowed: true, rule: "entry"),
        Case(
            name: "anonymous entry does not grant users", context: user, action: .send, scope: .app,
            entries: [ACLEntry(.send, .anonymous)], allowed: false, rule: "no_entry"),
        Case(
            name: "anonymous with no entry", context: anonymous, action: .subscribe, scope: .app, entries: [],
            allowed: false, rule: "no_entry"),
        // thing scope owners
        Case(
            name: "an owner of the scope thing, by rule", context: owner, action: .send, scope: .thing(lamp),
            entries: [], allowed: true, rule: "thing_owner"),
        Case(
            name: "owning a thing says nothing in another scope", context: owner, action: .send, scope: .user(bob),
            entries: [], allowed: false, rule: "no_entry"),
        Case(
            name: "the scope thing itself needs its entry", context: thing, action: .send, scope: .thing(lamp),
            entries: [], allowed: false, rule: "no_entry"),
        // precedence
        Case(
            name: "direct entry wins over group entry", context: member, action: .send, scope: .group(family),
            entries: [ACLEntry(.send, .group(family)), ACLEntry(.send, .user(alice))], allowed: true, rule: "entry"),
    ]

    @Test("Every subject kind × action × scope", arguments: cases)
    func table(_ check: Case) {
        let decision = AccessPolicy.evaluate(
            check.context, check.action, on: Self.topic(check.scope), entries: check.entries)
        #expect(decision.allowed == check.allowed)
        #expect(decision.reasonCode == check.rule)
    }

    @Test("The reason names the deciding entry or the missing permission")
    func reasons() {
        let granted = AccessPolicy.evaluate(
            Self.member, .send, on: Self.topic(.group(Self.family)),
            entries: [ACLEntry(.send, .group(Self.family), isDefault: true)])
        #expect(
            granted.description
                == "allowed by the default entry SEND_MESSAGE_TO_TOPIC/GroupID:family (user:alice is a member of "
                + "group family)"
        )
        let denied = AccessPolicy.evaluate(Self.user, .send, on: Self.topic(.app), entries: [])
        #expect(denied.description == "denied: no entry grants SEND_MESSAGE_TO_TOPIC to user:alice")
    }

    @Test(
        "allowsEveryUserAndThing holds only where evaluate allows every user and thing, whatever their groups and things"
    )
    func everyUserAndThing() {
        let contexts = [Self.user, Self.member, Self.thing, Self.owner, AccessContext(principal: .user(Self.bob))]
        let entryLists: [[ACLEntry]] = [
            [], [ACLEntry(.subscribe, .anyAuthenticated)], [ACLEntry(.send, .anyAuthenticated)],
            [ACLEntry(.subscribe, .anonymous)], [ACLEntry(.subscribe, .group(Self.family))],
            [ACLEntry(.subscribe, .user(Self.alice)), ACLEntry(.subscribe, .thing(Self.lamp))],
            [ACLEntry(.subscribe, .group(Self.family)), ACLEntry(.subscribe, .anyAuthenticated)],
        ]
        for entries in entryLists {
            for scope in [TopicScope.app, .group(Self.family), .thing(Self.lamp), .user(Self.bob)] {
                let allowedForEach = contexts.allSatisfy {
                    AccessPolicy.evaluate($0, .subscribe, on: Self.topic(scope), entries: entries).allowed
                }
                if AccessPolicy.allowsEveryUserAndThing(.subscribe, entries: entries) {
                    #expect(allowedForEach, "\(entries) in \(scope)")
                }
            }
        }
        #expect(AccessPolicy.allowsEveryUserAndThing(.subscribe, entries: [ACLEntry(.subscribe, .anyAuthenticated)]))
        #expect(!AccessPolicy.allowsEveryUserAndThing(.subscribe, entries: [ACLEntry(.send, .anyAuthenticated)]))
        #expect(!AccessPolicy.allowsEveryUserAndThing(.subscribe, entries: [ACLEntry(.subscribe, .anonymous)]))
        #expect(!AccessPolicy.allowsEveryUserAndThing(.subscribe, entries: [ACLEntry(.subscribe, .group(Self.family))]))
    }
}
