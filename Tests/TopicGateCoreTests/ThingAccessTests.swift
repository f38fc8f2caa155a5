import Testing
import TopicGateCore

@Suite("Who may manage a thing")
struct ThingAccessTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let principal: Principal
        let groups: Set<GroupID>
        let allowed: Bool
        var testDescription: String { "\(principal) in \(groups.map(\.rawValue).sorted()) → \(allowed)" }
    }

    static let thing = ThingID("th.1")
    static let owners: Set<Owner> = [.user(UserID("owner")), .group(GroupID("family"))]

    @Test(
        "The admin, the thing, a user owner and a member of a group owner may; nobody else",
        arguments: [
            Case(principal: .admin, groups: [], allowed: true),
            Case(principal: .thing(ThingID("th.1")), groups: [], allowed: true),
            Case(principal: .thing(ThingID("th.2")), groups: [], allowed: false),
            Case(principal: .user(UserID("owner")), groups: [], allowed: true),
            Case(principal: .user(UserID("member")), groups: [GroupID("family")], allowed: true),
            Case(principal: .user(UserID("member")), groups: [GroupID("other")], allowed: false),
            Case(principal: .user(UserID("stranger")), groups: [], allowed: false),
            Case(principal: .anonymous, groups: [], allowed: false),
        ])
    func table(_ check: Case) {
        #expect(
            ThingAccess.mayManage(check.principal, thing: Self.thing, owners: Self.owners, memberGroups: check.groups)
                == check.allowed)
    }
}
