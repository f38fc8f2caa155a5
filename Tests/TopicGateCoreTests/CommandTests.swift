import Testing
import TopicGateCore

/// Commands, their results and who hears of them: pure rules.
@Suite("Thing-IF commands: parsing, results and routing")
struct CommandTests {
    @Test("Both formats parse; extras are kept; the issuer is typed")
    func parsing() throws {
        let trait = try CommandRequest(body: [
            "actions": [["Lamp": [["turnPower": true], ["setBrightness": 80]]]], "issuer": "USER:u1", "title": "On",
        ])
        #expect(trait.issuer == .user(UserID("u1")))
        #expect(trait.extras["title"] == "On")
        let schema = try CommandRequest(body: [
            "actions": [["turnPower": ["power": true]]], "issuer": "group:g1", "schema": "lamp", "schemaVersion": 2,
        ])
        #expect(schema.issuer == .group(GroupID("g1")))
        #expect(schema.members["schemaVersion"] == 2)
    }

    @Test("Results: DONE only when every action succeeded, in either format")
    func resultStates() throws {
        let done = try ActionResults(body: ["actionResults": [["Lamp": [["turnPower": ["succeeded": true]]]]]])
        #expect(done.state == .done)
        let incomplete = try ActionResults(body: [
            "actionResults": [["turnPower": ["succeeded": true]], ["setBrightness": ["succeeded": false]]]
        ])
        #expect(incomplete.state == .incomplete)
        // A non-boolean `succeeded` is not success.
        #expect(try ActionResults(body: ["actionResults": [["a": ["succeeded": "yes"]]]]).state == .incomplete)
        #expect(throws: KiiError.self) { try ActionResults(body: ["actionResults": [["a": ["ok": true]]]]) }
    }

    @Test("The emulator's answer has the actions' shape and the state it claims")
    func answering() throws {
        let actions: [JSONValue] = [["Lamp": [["turnPower": true], ["setBrightness": 80]]], ["reboot": true]]
        let answer = ActionResults.answering(actions) { $0 != "setBrightness" }
        #expect(
            answer == [
                [
                    "Lamp": [
                        ["turnPower": ["succeeded": true]],
                        ["setBrightness": ["succeeded": false, "errorMessage": "setBrightness failed (emulated)"]],
                    ]
                ],
                ["reboot": ["succeeded": true]],
            ])
        #expect(try ActionResults(body: ["actionResults": answer]).state == .incomplete)
        #expect(
            try ActionResults(body: ["actionResults": ActionResults.answering(actions) { _ in true }]).state == .done)
    }

    @Test("Issuing: an owner as itself, a member as its group, the admin as any owner; nobody else")
    func mayIssue() {
        let (u1, u2, g1, g2) = (UserID("u1"), UserID("u2"), GroupID("g1"), GroupID("g2"))
        let owners: Set<Owner> = [.user(u1), .group(g1)]
        #expect(CommandRouting.mayIssue(.user(u1), as: .user(u1), owners: owners, memberGroups: []))
        #expect(!CommandRouting.mayIssue(.user(u2), as: .user(u1), owners: owners, memberGroups: [g1]))
        #expect(CommandRouting.mayIssue(.user(u2), as: .group(g1), owners: owners, memberGroups: [g1]))
        #expect(!CommandRouting.mayIssue(.user(u2), as: .group(g1), owners: owners, memberGroups: [g2]))
        #expect(!CommandRouting.mayIssue(.user(u2), as: .user(u2), owners: owners, memberGroups: [g1]))
        #expect(!CommandRouting.mayIssue(.user(u2), as: .group(g2), owners: owners, memberGroups: [g2]))
        #expect(CommandRouting.mayIssue(.admin, as: .group(g1), owners: owners, memberGroups: []))
        #expect(!CommandRouting.mayIssue(.admin, as: .group(g2), owners: owners, memberGroups: []))
        #expect(!CommandRouting.mayIssue(.thing(ThingID("t")), as: .user(u1), owners: owners, memberGroups: []))
        #expect(!CommandRouting.mayIssue(.anonymous, as: .user(u1), owners: owners, memberGroups: []))
    }

    @Test(
        "Result recipients: the issuing user alone, or the group's current members while it owns the thing, never the thing"
    )
    func recipients() {
        let group = Owner.group(GroupID("g"))
        #expect(
            CommandRouting.resultRecipients(issuer: .user(UserID("u1")), groupMembers: [UserID("u9")], owners: [])
                == [.user(UserID("u1"))])
        #expect(
            CommandRouting.resultRecipients(
                issuer: group, groupMembers: [UserID("b"), UserID("a"), UserID("b")], owners: [group])
                == [.user(UserID("a")), .user(UserID("b"))])
        // Deleted, or removed from the thing: a group with the same ID now is another group.
        #expect(
            CommandRouting.resultRecipients(
                issuer: group, groupMembers: [UserID("a")], owners: [.user(UserID("a")), .group(GroupID("h"))]
            ).isEmpty)
    }

    @Test("The command-result payload carries the command ID and no actions")
    func resultPayload() throws {
        let request = try CommandRequest(body: ["actions": [["turnPower": true]], "issuer": "user:u1"])
        let command = Command(
            id: "c1", appID: AppID("a"), thing: ThingID("t"), issuer: request.issuer, request: request, createdAt: 1,
            modifiedAt: 1)
        let payload = Command.resultPayload(command.id, pushMessageID: "p1", at: 5).objectValue ?? [:]
        #expect(payload["commandID"] == "c1")
        #expect(payload["actions"] == nil)
        #expect(command.thingPayload.objectValue?["actions"] != nil)
        #expect(command.thingPayload.objectValue?["commandID"] == "c1")
    }
}
