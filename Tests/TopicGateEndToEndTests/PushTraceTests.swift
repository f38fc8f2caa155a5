import Foundation
import HTTPTypes
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore

/// The admin's test push: traced to each device of the recipients, as the console shows it.
@Suite("A test push traced to each device")
struct PushTraceTests {
    @Test(
        "Each recipient's device is acknowledged (online) or offline; a device that is not a recipient neither appears nor receives it; admin only"
    )
    func trace() async throws {
        let world = try await PushWorld.started()
        let admin = try await world.adminToken()
        let owner = try await world.pseudoUser()
        let bob = try await world.pseudoUser()
        let carl = try await world.pseudoUser()
        let dave = try await world.pseudoUser()
        let topic = try await world.groupTopic(owner: owner.token, members: [bob.id, carl.id, dave.id])
        try await world.subscribe(topic, userID: bob.id, token: bob.token)
        try await world.subscribe(topic, userID: carl.id, token: carl.token)
        // Bob's device is connected; Carl's is installed but not connected; Dave is a member
        // with a connected device who did not subscribe.
        let bobsEndpoint = try await world.install(token: bob.token)
        let carlsEndpoint = try await world.install(token: carl.token)
        let davesEndpoint = try await world.install(token: dave.token)
        let bobsDevice = try await world.connectedDevice(bobsEndpoint)
        let davesDevice = try await world.connectedDevice(davesEndpoint)
        defer {
            bobsDevice.shutdown()
            davesDevice.shutdown()
        }
        let bobReceived = ReceivedMessages(bobsDevice)
        let daveReceived = ReceivedMessages(davesDevice)
        /// Waits until the gateway has heard of Bob's connection (the plugin reports it).
        let bobsPage = "\(world.app)/principals/user:\(bob.id)/access?topics=false"
        #expect(
            try await eventually {
                try await world.call(.get, bobsPage, token: admin).expect(.ok).object["installations"]?.arrayValue?
                    .first?.objectValue?["online"] == true
            })

        let body: JSONValue = ["data": ["msg": "test push"]]
        // Only the admin may trace a push, and read a trace.
        #expect(
            try await world.call(
                .post, "\(topic)/push/messages?trace=true", token: owner.token,
                contentType: "application/vnd.kii.SendPushMessageRequest+json", json: body
            ).status == .forbidden)
        let sent = try await world.call(
            .post, "\(topic)/push/messages?trace=true", token: admin,
            contentType: "application/vnd.kii.SendPushMessageRequest+json", json: body
        ).expect(.created)
        let messageID = try sent.require("pushMessageID")
        let deliveriesPath = try sent.require("deliveries")
        #expect(deliveriesPath == "\(world.app)/push/messages/\(messageID)/deliveries")
        #expect(try await world.call(.get, deliveriesPath, token: owner.token).status == .forbidden)

        func deliveries() async throws -> [String: [String: JSONValue]] {
            let reply = try await world.call(.get, deliveriesPath, token: admin).expect(.ok)
            let rows: [[String: JSONValue]] = reply.object["deliveries"]?.arrayValue?.compactMap(\.objectValue) ?? []
            return Dictionary(uniqueKeysWithValues: rows.map { ($0["installationID"]?.stringValue ?? "", $0) })
        }
        #expect(
            try await eventually {
                try await deliveries()[bobsEndpoint.installationID]?["state"] == "acknowledged"
            })
        let traced = try await deliveries()
        #expect(traced.count == 2)
        #expect(traced[bobsEndpoint.installationID]?["principal"] == .string("user:\(bob.id)"))
        #expect(traced[bobsEndpoint.installationID]?["online"] == true)
        #expect(traced[carlsEndpoint.installationID]?["state"] == "offline")
        #expect(traced[carlsEndpoint.installationID]?["online"] == false)
        #expect(traced[davesEndpoint.installationID] == nil)
        let counts = try await world.call(.get, deliveriesPath, token: admin).expect(.ok).object["counts"]
        #expect(counts == ["pending": 0, "acknowledged": 1, "offline": 1, "failed": 0])

        // Bob's device has it; Dave's received nothing.
        #expect(await bobReceived.wait(for: 1).first?.payload.contains(Array("test push".utf8)) == true)
        #expect(await daveReceived.before(marker: try await world.marker(to: dave)) == [])
        // The CLI does the same: Bob's device acknowledged, Carl's offline.
        let (clientID, clientSecret) = try world.server.adminCredentials()
        let groupTopic = "group/" + topic.split(separator: "/")[4] + "/news"
        let cli = try await world.server.runCLI(
            ["topics", "test-push", "--message", "from the CLI", groupTopic],
            credentials: [
                "TOPICGATE_APP_ID": world.appID, "TOPICGATE_CLIENT_ID": clientID,
                "TOPICGATE_CLIENT_SECRET": clientSecret,
            ])
        #expect(cli.0 == 0)
        #expect(cli.1.contains("1 acknowledged, 0 pending, 1 offline, 0 failed"))
        #expect(cli.1.contains(bobsEndpoint.installationID) && cli.1.contains(carlsEndpoint.installationID))
        #expect(!cli.1.contains(davesEndpoint.installationID))
        #expect(await bobReceived.wait(for: 2).count == 2)

        // An untraced send leaves no trace.
        let plain = try await world.send(topic, token: owner.token).expect(.created).require("pushMessageID")
        #expect(await bobReceived.wait(for: 3).count == 3)
        let none = try await world.call(.get, "\(world.app)/push/messages/\(plain)/deliveries", token: admin)
            .expect(.ok)
        #expect(none.object["deliveries"] == .array([]))
        try await world.stop()
    }
}
