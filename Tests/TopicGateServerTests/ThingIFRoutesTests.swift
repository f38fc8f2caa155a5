import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore
import TopicGateStore

/// Thing-IF commands and states over HTTP: validation, who may issue, report and read.
@Suite("Thing-IF commands and states over HTTP")
struct ThingIFRoutesTests {
    /// An owner, a group with `member` that also owns the thing, an outsider, and the thing.
    struct Scene {
        let owner: (id: String, token: String)
        let member: (id: String, token: String)
        let outsider: (id: String, token: String)
        let group: String
        let thing: (id: String, token: String)
        let other: (id: String, token: String)
        let base: String
    }

    func scene(_ client: TestServer.Client) async throws -> Scene {
        let owner = try await client.pseudoUser()
        let member = try await client.pseudoUser()
        let outsider = try await client.pseudoUser()
        let group = try await client.group(owner: owner.token, members: [member.id])
        let onboarded = try await client.call(
            .post, "/thing-if/apps/\(client.server.app.id.rawValue)/onboardings", token: owner.token,
            contentType: "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
            json: ["vendorThingID": "lamp-1", "thingPassword": "thing-password", "owner": .string("user:\(owner.id)")])
        let thing = (try #require(onboarded.string("thingID")), try #require(onboarded.string("accessToken")))
        #expect(
            try await client.call(.put, "\(client.app)/things/\(thing.0)/ownership/group:\(group)", token: owner.token)
                .status == .noContent)
        let other = try await client.thing("lamp-2")
        return Scene(
            owner: owner, member: member, outsider: outsider, group: group, thing: thing, other: other,
            base: "/thing-if/apps/\(client.server.app.id.rawValue)/targets/thing:\(thing.0)")
    }

    static let traitMedia = "application/vnd.kii.CommandCreationRequest+json"

    func command(
        _ issuer: String,
        actions: JSONValue = [["AirConditionerAlias": [["turnPower": true], ["setPresetTemperature": 25]]]]
    ) -> String {
        JSONWriter.string([
            "actions": actions, "issuer": .string(issuer), "title": "Power on", "metadata": ["by": "test"],
        ])
    }

    @Test("An owner issues as itself, a member as its group; the command reads back SENDING with Kii's fields")
    func issue() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let scene = try await scene(client)
            let created = try await client.call(
                .post, "\(scene.base)/commands", token: scene.owner.token, contentType: Self.traitMedia,
                body: command("user:\(scene.owner.id)"))
            #expect(created.status == .created)
            let id = try #require(created.string("commandID"))
            let read = try await client.call(.get, "\(scene.base)/commands/\(id)", token: scene.owner.token)
            #expect(read.status == .ok)
            #expect(read.string("commandID") == id)
            #expect(read.string("target") == "thing:\(scene.thing.id)")
            #expect(read.string("issuer") == "user:\(scene.owner.id)")
            #expect(read.string("commandState") == "SENDING")
            #expect(read.string("title") == "Power on")
            #expect(read.object["actions"]?.arrayValue?.count == 1)
            #expect(read.object["createdAt"]?.intValue != nil)
            #expect(read.object["actionResults"] == nil)

            // The schema format with application/json, by a group member acting as the group.
            let schema = try await client.call(
                .post, "\(scene.base)/commands", token: scene.member.token, contentType: "application/json",
                json: [
                    "schema": "lamp", "schemaVersion": 1, "actions": [["turnPower": ["power": true]]],
                    "issuer": .string("group:\(scene.group)"),
                ])
            #expect(schema.status == .created)
            // The member reads it, being a member of an owner group.
            let byMember = try await client.call(
                .get, "\(scene.base)/commands/\(try #require(schema.string("commandID")))", token: scene.member.token)
            #expect(byMember.string("schema") == "lamp")
        }
    }

    @Test("Issuer checks: not an owner, acting for someone else, a group one is not in, the thing itself: 403")
    func issuerChecks() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let scene = try await scene(client)
            let refusals: [(String, String)] = [
                (scene.outsider.token, "user:\(scene.outsider.id)"),  // not an owner
                (scene.member.token, "user:\(scene.owner.id)"),  // acting as another user
                (scene.outsider.token, "group:\(scene.group)"),  // not a member of the owner group
                (scene.thing.token, "user:\(scene.owner.id)"),  // the thing itself
                (scene.member.token, "user:\(scene.member.id)"),  // a member is not a user owner
            ]
            for (token, issuer) in refusals {
                let reply = try await client.call(
                    .post, "\(scene.base)/commands", token: token, contentType: Self.traitMedia, body: command(issuer))
                #expect(reply.status == .forbidden, "\(issuer)")
                #expect(reply.errorCode == "UNAUTHORIZED")
            }
            let noToken = try await client.call(
                .post, "\(scene.base)/commands", contentType: Self.traitMedia, body: command("user:\(scene.owner.id)"))
            #expect(noToken.status == .unauthorized)
            // The admin may issue as an owner.
            let admin = try await client.adminToken()
            #expect(
                try await client.call(
                    .post, "\(scene.base)/commands", token: admin, contentType: Self.traitMedia,
                    body: command("user:\(scene.owner.id)")
                ).status == .created)
        }
    }

    @Test(
        "Bad commands get 400 with a clear errorCode",
        arguments: [
            #"{"issuer":"user:x"}"#, #"{"actions":[],"issuer":"user:x"}"#, #"{"actions":[1],"issuer":"user:x"}"#,
            #"{"actions":[{}],"issuer":"user:x"}"#, #"{"actions":[{"a":[{"x":1}]},{"b":1}],"issuer":"user:x"}"#,
            #"{"actions":[{"turn":true}]}"#, #"{"actions":[{"turn":true}],"issuer":"thing:x"}"#,
            JSONWriter.string([
                "actions": [["turn": true]], "issuer": "user:x",
                "title": "0123456789012345678901234567890123456789012345678901",
            ]),
            #"{"actions":[{"turn":true}],"issuer":"user:x","metadata":"m"}"#, "[]", "nope",
        ])
    func badCommands(body: String) async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let scene = try await scene(client)
            let reply = try await client.call(
                .post, "\(scene.base)/commands", token: scene.owner.token, contentType: Self.traitMedia, body: body)
            #expect(reply.status == .badRequest, "\(body): \(reply.text)")
            #expect(reply.errorCode != nil)
        }
    }

    @Test("Only the thing reports results: DONE when all succeeded, INCOMPLETE otherwise; others are refused")
    func actionResults() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let scene = try await scene(client)
            var ids: [String] = []
            for _ in 0..<2 {
                let created = try await client.call(
                    .post, "\(scene.base)/commands", token: scene.owner.token, contentType: Self.traitMedia,
                    body: command("user:\(scene.owner.id)"))
                ids.append(try #require(created.string("commandID")))
            }
            let media = "application/vnd.kii.CommandResultsUpdateRequest+json"
            let succeeded =
                JSONWriter.string([
                    "actionResults": [
                        [
                            "AirConditionerAlias": [
                                ["turnPower": ["succeeded": true]], ["setPresetTemperature": ["succeeded": true]],
                            ]
                        ]
                    ]
                ])
            let failed =
                JSONWriter.string([
                    "actionResults": [
                        [
                            "AirConditionerAlias": [
                                ["turnPower": ["succeeded": true]],
                                ["setPresetTemperature": ["succeeded": false, "errorMessage": "too hot"]],
                            ]
                        ]
                    ]
                ])
            for token in [scene.other.token, scene.owner.token, scene.member.token] {
                let refused = try await client.call(
                    .put, "\(scene.base)/commands/\(ids[0])/action-results", token: token, contentType: media,
                    body: succeeded)
                #expect(refused.status == .forbidden)
            }
            #expect(
                try await client.call(
                    .put, "\(scene.base)/commands/\(ids[0])/action-results", token: scene.thing.token,
                    contentType: media, body: succeeded
                ).status == .noContent)
            #expect(
                try await client.call(
                    .put, "\(scene.base)/commands/\(ids[1])/action-results", token: scene.thing.token,
                    contentType: "application/json", body: failed
                ).status == .noContent)
            #expect(
                try await client.call(.get, "\(scene.base)/commands/\(ids[0])", token: scene.owner.token).string(
                    "commandState") == "DONE")
            let incomplete = try await client.call(.get, "\(scene.base)/commands/\(ids[1])", token: scene.owner.token)
            #expect(incomplete.string("commandState") == "INCOMPLETE")
            #expect(incomplete.object["actionResults"]?.arrayValue?.count == 1)

            let unknown = try await client.call(
                .put, "\(scene.base)/commands/nope/action-results", token: scene.thing.token, contentType: media,
                body: succeeded)
            #expect(unknown.status == .notFound)
            #expect(unknown.errorCode == "COMMAND_NOT_FOUND")
            for body in [#"{"actionResults":[]}"#, #"{"actionResults":[{"a":{"done":1}}]}"#, "{}"] {
                let bad = try await client.call(
                    .put, "\(scene.base)/commands/\(ids[0])/action-results", token: scene.thing.token,
                    contentType: media, body: body)
                #expect(bad.status == .badRequest, "\(body)")
            }
        }
    }

    @Test(
        "Results of a command created here lately (its thing and issuer kept) and of one this gateway did not create (read from the store) are both recorded; another thing cannot report them; a deleted thing's cannot be"
    )
    func resultsOfKeptAndStoredCommands() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let scene = try await scene(client)
            let created = try await client.call(
                .post, "\(scene.base)/commands", token: scene.owner.token, contentType: Self.traitMedia,
                body: command("user:\(scene.owner.id)")
            ).expect(.created)
            let kept = try created.require("commandID")
            // As another gateway (or this one before a restart) would have stored it.
            let request = try CommandRequest(body: [
                "actions": [["Lamp": [["turnPower": true]]]], "issuer": .string("user:\(scene.owner.id)"),
            ])
            try await server.store.insertCommand(
                Command(
                    id: "stored-elsewhere", appID: server.app.id, thing: ThingID(scene.thing.id),
                    issuer: request.issuer, request: request, createdAt: 1, modifiedAt: 1))
            let results = #"{"actionResults":[{"Lamp":[{"turnPower":{"succeeded":true}}]}]}"#
            let otherBase = "/thing-if/apps/\(server.app.id.rawValue)/targets/thing:\(scene.other.id)"
            for id in [kept, "stored-elsewhere"] {
                let foreign = try await client.call(
                    .put, "\(otherBase)/commands/\(id)/action-results", token: scene.other.token,
                    contentType: "application/json", body: results)
                #expect(foreign.errorCode == "COMMAND_NOT_FOUND", "\(id)")
                try await client.call(
                    .put, "\(scene.base)/commands/\(id)/action-results", token: scene.thing.token,
                    contentType: "application/json", body: results
                ).expect(.noContent)
                #expect(
                    try await client.call(.get, "\(scene.base)/commands/\(id)", token: scene.owner.token).string(
                        "commandState") == "DONE")
            }
            try await client.call(.delete, "\(client.app)/things/\(scene.thing.id)", token: scene.owner.token)
                .expect(.noContent)
            let gone = try await client.call(
                .put, "\(scene.base)/commands/\(kept)/action-results", token: scene.thing.token,
                contentType: "application/json", body: results)
            // Kii's answer to a token that no longer holds: 403 WRONG_TOKEN.
            #expect(
                gone.status == .forbidden && gone.string("errorCode") == "WRONG_TOKEN", "\(gone.status) \(gone.text)")
        }
    }

    @Test("Commands are read by owners only, listed newest first with pagination")
    func readingAndListing() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let scene = try await scene(client)
            var ids: [String] = []
            for _ in 0..<5 {
                let created = try await client.call(
                    .post, "\(scene.base)/commands", token: scene.owner.token, contentType: Self.traitMedia,
                    body: command("user:\(scene.owner.id)"))
                ids.append(try #require(created.string("commandID")))
            }
            for token in [scene.outsider.token, scene.thing.token, scene.other.token] {
                #expect(
                    try await client.call(.get, "\(scene.base)/commands/\(ids[0])", token: token).status == .forbidden)
                #expect(try await client.call(.get, "\(scene.base)/commands", token: token).status == .forbidden)
            }
            var listed: [String] = []
            var key: String?
            repeat {
                let page = try await client.call(
                    .get, "\(scene.base)/commands?bestEffortLimit=2" + (key.map { "&paginationKey=\($0)" } ?? ""),
                    token: scene.member.token)
                #expect(page.status == .ok)
                let commands = page.object["commands"]?.arrayValue ?? []
                #expect(commands.count <= 2)
                listed += commands.compactMap { $0.objectValue?["commandID"]?.stringValue }
                key = page.string("nextPaginationKey")
            } while key != nil
            #expect(Set(listed) == Set(ids))
            #expect(listed.count == 5)
            // A command of another thing is not found under this one.
            let elsewhere =
                "/thing-if/apps/\(server.app.id.rawValue)/targets/thing:\(scene.other.id)/commands/\(ids[0])"
            #expect(try await client.call(.get, elsewhere, token: scene.other.token).status == .forbidden)
            #expect(
                try await client.call(.get, "\(scene.base)/commands/none", token: scene.owner.token).status == .notFound
            )
            #expect(
                try await client.call(
                    .get, "/thing-if/apps/\(server.app.id.rawValue)/targets/user:\(scene.owner.id)/commands",
                    token: scene.owner.token
                ).status == .notFound)
        }
    }

    @Test(
        "States: the thing (or its owner) reports (plain and trait), owners read the latest and the history, empty is EMPTY_BODY"
    )
    func states() async throws {
        let server = try await TestServer.make()
        try await server.run { client in
            let scene = try await scene(client)
            let path = "\(scene.base)/states"
            let none = try await client.call(.get, path, token: scene.owner.token)
            #expect(none.status == .notFound)
            #expect(none.errorCode == "STATE_NOT_FOUND")
            for body in ["", "{}"] {
                let empty = try await client.call(
                    .put, path, token: scene.thing.token, contentType: "application/json", body: body)
                #expect(empty.status == .badRequest)
                #expect(empty.errorCode == "EMPTY_BODY")
            }
            #expect(
                try await client.call(
                    .put, path, token: scene.thing.token, contentType: "application/json", body: "[1]"
                ).status == .badRequest)
            #expect(
                try await client.call(
                    .put, path, token: scene.other.token, contentType: "application/json", body: #"{"power":true}"#
                ).status == .forbidden)

            #expect(
                try await client.call(
                    .put, path, token: scene.thing.token, contentType: "application/json",
                    body: #"{"power":true,"temperature":21}"#
                ).status == .noContent)
            #expect(
                try await client.call(
                    .put, path, token: scene.thing.token, contentType: "application/vnd.kii.MultipleTraitState+json",
                    body: #"{"AirConditionerAlias":{"power":false,"temperature":23}}"#
                ).status == .noContent)
            let latest = try await client.call(.get, path, token: scene.member.token)
            #expect(latest.status == .ok)
            #expect(latest.object == ["AirConditionerAlias": .object(["power": false, "temperature": 23])])
            #expect(try await client.call(.get, path, token: scene.outsider.token).status == .forbidden)
            #expect(try await client.call(.get, path, token: scene.thing.token).status == .ok)

            let history = try await client.call(.get, "\(path)/history?from=0&limit=10", token: scene.owner.token)
            let states = history.object["states"]?.arrayValue ?? []
            #expect(states.count == 2)
            // An owner registers its thing's state too (a gateway agent may use its owner's token).
            #expect(
                try await client.call(
                    .put, path, token: scene.owner.token, contentType: "application/vnd.kii.MultipleTraitState+json",
                    body: #"{"AirConditionerAlias":{"power":true}}"#
                ).status == .noContent)
            #expect(states.first?.objectValue?["state"]?.objectValue?["temperature"] == 21)
            #expect(
                try await client.call(.get, "\(path)/history?limit=1", token: scene.owner.token).object["states"]?
                    .arrayValue?.count == 1)
            #expect(
                try await client.call(.get, "\(path)/history?from=-5", token: scene.owner.token).status == .badRequest)
            #expect(
                try await client.call(.get, "\(path)/history?to=1", token: scene.owner.token).object["states"]?
                    .arrayValue?.isEmpty == true)
        }
    }
}
