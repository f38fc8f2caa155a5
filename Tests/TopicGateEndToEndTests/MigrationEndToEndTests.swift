import Foundation
import GRDB
import HTTPTypes
import MQTTBridge
import TestSupport
import Testing
import TopicGateCore

/// Device migration, disabling and the idle pseudo user cleanup through the real executable,
/// a real Mosquitto and real MQTT devices.
@Suite("Migration and abuse controls end to end", .serialized)
struct MigrationEndToEndTests {
    static let externalID = "_0f1e2d3c4b5a69788796a5b4c3d2e1f00"
    static let secret = "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"

    func link(_ world: PushWorld, token: String) async throws {
        let linked = try await world.call(
            .post, "\(world.app)/users/me/links", token: token,
            json: ["provider": "icloud", "externalID": .string(Self.externalID), "secret": .string(Self.secret)])
        #expect(linked.status == .created)
    }

    func linkLogin(_ world: PushWorld, secret: String = secret) async throws -> APIReply {
        try await world.call(
            .post, "\(world.app)/links/login",
            json: ["provider": "icloud", "externalID": .string(Self.externalID), "secret": .string(secret)])
    }

    /// Sets the user's last token use `days` days back, as if it had not been used since.
    func age(_ world: PushWorld, userID: String, days: Int64) throws {
        // The running gateway writes the same file (last-seen times, the outbox): wait for it, as
        // the CLI does, instead of failing at once on its lock.
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let database = try DatabaseQueue(path: world.directory + "/topicgate.sqlite", configuration: configuration)
        try database.write { db in
            try db.execute(
                sql: "UPDATE users SET last_seen_at = last_seen_at - ? WHERE user_id = ?",
                arguments: [days * 86_400_000, userID])
        }
    }

    @Test(
        "A new phone logs in through the link and receives the user's pushes beside the old one; guesses get locked out"
    )
    func migration() async throws {
        let world = try await PushWorld.started()
        let scene = try await world.subscribedMember()
        let oldPhone = try await world.connectedDevice(scene.endpoint)
        defer { oldPhone.shutdown() }
        let oldInbox = ReceivedMessages(oldPhone)
        try await link(world, token: scene.member.token)

        // The new phone has only what followed the person: the external ID and the secret.
        let login = try await linkLogin(world)
        #expect(login.status == .ok)
        #expect(login.object["id"]?.stringValue == scene.member.id)
        let newToken = try #require(login.object["access_token"]?.stringValue)
        let newPhone = try await world.connectedDevice(try await world.install(token: newToken))
        defer { newPhone.shutdown() }
        let newInbox = ReceivedMessages(newPhone)
        let bystanderUser = try await world.pseudoUser()
        let bystander = try await world.connectedDevice(try await world.install(token: bystanderUser.token))
        defer { bystander.shutdown() }
        let bystanderInbox = ReceivedMessages(bystander)

        try await world.push(scene.topic, token: scene.owner.token, message: "after the move")
        #expect(await newInbox.wait(for: 1).first?.object["msg"]?.stringValue == "after the move")
        #expect(await oldInbox.wait(for: 1).first?.object["msg"]?.stringValue == "after the move")
        #expect(await bystanderInbox.before(marker: try await world.marker(to: bystanderUser)) == [])

        // Someone guessing secrets for the external ID is locked out, and then so is the right secret.
        for _ in 0..<5 {
            #expect(try await linkLogin(world, secret: String(repeating: "0f", count: 32)).status == .badRequest)
        }
        let locked = try await linkLogin(world)
        #expect(locked.status == .badRequest)
        #expect(locked.object["error_description"]?.stringValue == "The login name is locked")
        // The 30 s lock started at the fifth guess; a loaded machine may take a second or more
        // before this request, and the header counts what is left, rounded up.
        let retryAfter = Int(locked.headers[.retryAfter] ?? "") ?? 0
        #expect((25...30).contains(retryAfter), "Retry-After: \(retryAfter)")
        try await world.stop()
    }

    @Test("Disabling a thing kicks its device and the broker refuses it")
    func thingDisableKicks() async throws {
        let world = try await PushWorld.started()
        let owner = try await world.pseudoUser()
        let thing = try await world.onboardThing("disabled-lamp", owner: owner)
        let device = try await world.connectedDevice(thing.endpoint)
        defer { device.shutdown() }
        var events = device.connectionEvents.makeAsyncIterator()
        #expect(await events.next() == .connected)
        let admin = try await world.adminToken()
        let disabled = try await world.call(
            .put, "\(world.app)/things/\(thing.id)/status", token: admin, contentType: "application/json",
            body: #"{"disabled":true}"#)
        #expect(disabled.status == .noContent)
        #expect(await events.next() == .disconnected(expected: false))
        if case .refused? = await events.next() {} else { Issue.record("the disabled thing's device reconnected") }
        #expect(
            try await world.call(.get, "\(world.app)/things/\(thing.id)", token: thing.token).object["errorCode"]
                == "THING_DISABLED")
        try await world.stop()
    }

    @Test("users cleanup: the dry run lists only the idle pseudo user; the run removes it and kicks its device")
    func cleanupCommand() async throws {
        let world = try await PushWorld.started()
        let idle = try await world.pseudoUser()
        let active = try await world.pseudoUser()
        let idleDevice = try await world.connectedDevice(try await world.install(token: idle.token))
        defer { idleDevice.shutdown() }
        var events = idleDevice.connectionEvents.makeAsyncIterator()
        #expect(await events.next() == .connected)
        try age(world, userID: idle.id, days: 45)
        let credentials = try world.server.adminCredentials()
        let environment = [
            "TOPICGATE_APP_ID": world.appID, "TOPICGATE_CLIENT_ID": credentials.clientID,
            "TOPICGATE_CLIENT_SECRET": credentials.clientSecret,
        ]

        let preview = try await world.server.runCLI(
            ["users", "cleanup", "--idle-days", "30", "--dry-run"], credentials: environment)
        #expect(preview.0 == 0)
        #expect(preview.1.contains("Would remove 1 pseudo user(s)"))
        #expect(preview.1.contains(idle.id))
        #expect(!preview.1.contains(active.id))
        #expect(try await world.call(.get, "\(world.app)/users/me", token: idle.token).status == .ok)

        // That request was activity: age it again, then remove it for real.
        try age(world, userID: idle.id, days: 45)
        let run = try await world.server.runCLI(["users", "cleanup", "--idle-days", "30"], credentials: environment)
        #expect(run.0 == 0)
        #expect(run.1.contains("Removed 1 pseudo user(s)"))
        #expect(await events.next() == .disconnected(expected: false))
        #expect(
            try await world.call(.get, "\(world.app)/users/me", token: idle.token).object["errorCode"] == "WRONG_TOKEN")
        #expect(try await world.call(.get, "\(world.app)/users/me", token: active.token).status == .ok)
        try await world.stop()
    }

    @Test("serve --pseudo-user-idle-days removes idle pseudo users on its schedule")
    func scheduledCleanup() async throws {
        let world = try await PushWorld.started(arguments: [
            "--pseudo-user-idle-days", "30", "--pseudo-user-cleanup-interval", "1",
        ])
        let idle = try await world.pseudoUser()
        let active = try await world.pseudoUser()
        let admin = try await world.adminToken()
        try age(world, userID: idle.id, days: 31)
        // Asked by the admin: a request with the idle user's own token would be activity.
        #expect(
            try await eventually {
                try await world.call(.get, "\(world.app)/users/\(idle.id)", token: admin).object["errorCode"]
                    == "USER_NOT_FOUND"
            })
        #expect(
            try await world.call(.get, "\(world.app)/users/me", token: idle.token).object["errorCode"] == "WRONG_TOKEN")
        #expect(try await world.call(.get, "\(world.app)/users/me", token: active.token).status == .ok)
        try await world.stop()
    }
}
