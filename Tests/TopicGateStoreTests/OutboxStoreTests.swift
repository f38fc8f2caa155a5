import Foundation
import Testing
import TopicGateCore
import TopicGateStore

/// The outbox and the dead letters on each engine.
@Suite("Store: outbox and dead letters")
struct OutboxStoreTests {
    let appID = AppID("app1")

    func message(_ id: String, commandID: String? = nil) -> OutboxMessage {
        OutboxMessage(
            id: PushMessageID(id), appID: appID, payload: Array("{\"m\":\"\(id)\"}".utf8) + [0, 255],
            recipients: [.user(UserID("u1")), .thing(ThingID("t1"))], acceptedAt: 7,
            commandID: commandID.map { CommandID($0) })
    }

    /// A store with thing t1 and command c1 for it (not stored yet).
    func storeWithThing(_ engine: StoreEngine) async throws -> (any Store, Command) {
        let store = try await engine.newStore(appID: appID)
        let thing = ThingID("t1")
        try await store.insertThing(
            Thing(
                id: thing, appID: appID, vendorThingID: "v", passwordHash: "h", fields: ThingFields(), createdAt: 1,
                modifiedAt: 1))
        let request = try CommandRequest(body: ["actions": [["turnPower": true]], "issuer": "user:u1"])
        let command = Command(
            id: "c1", appID: appID, thing: thing, issuer: request.issuer, request: request, createdAt: 1, modifiedAt: 1)
        return (store, command)
    }

    @Test("Accepted messages come back oldest first, byte for byte, until completed", arguments: StoreEngine.allCases)
    func pending(_ engine: StoreEngine) async throws {
        let store = try await engine.newStore(appID: appID)
        try await store.enqueue([message("m1"), message("m2")])
        try await store.enqueue([message("m3")])
        #expect(try await store.pendingMessages(limit: 10) == [message("m1"), message("m2"), message("m3")])
        #expect(try await store.pendingMessages(limit: 1) == [message("m1")])
        #expect(try await store.pendingMessageCount() == 3)
        try await store.recordFailedAttempt(ids: ["m2"])
        #expect(try await store.pendingMessages(limit: 10).map(\.attempts) == [0, 1, 0])
        try await store.completeMessages(ids: ["m1", "m3"])
        #expect(try await store.pendingMessages(limit: 10).map(\.id) == ["m2"])
        // All or none: a batch with a duplicate ID leaves nothing behind.
        await #expect(throws: (any Error).self) { try await store.enqueue([message("m4"), message("m2")]) }
        #expect(try await store.pendingMessageCount() == 1)
    }

    @Test(
        "A batch larger than one statement binds is written whole, in order; all or none",
        arguments: StoreEngine.allCases)
    func largeBatch(_ engine: StoreEngine) async throws {
        let store = try await engine.newStore(appID: appID)
        let ids = (0..<2_500).map { String(format: "m%04d", $0) }
        try await store.enqueue(ids.map { message($0) })
        #expect(try await store.pendingMessageCount() == 2_500)
        #expect(try await store.pendingMessages(limit: 3_000).map(\.id.rawValue) == ids)
        // A duplicate in the last part leaves none of the batch behind.
        let more = (0..<2_100).map { String(format: "n%04d", $0) } + ["m0000"]
        await #expect(throws: (any Error).self) { try await store.enqueue(more.map { message($0) }) }
        #expect(try await store.pendingMessageCount() == 2_500)
    }

    @Test(
        "A command and its push, its results and theirs, are each stored in one transaction: all or nothing",
        arguments: StoreEngine.allCases)
    func commandWithPush(_ engine: StoreEngine) async throws {
        let (store, command) = try await storeWithThing(engine)
        func queued(_ id: String) -> QueuedPush {
            QueuedPush(message: message(id, commandID: "c1"), claim: OutboxClaim(gateway: "gw-1", leaseUntil: 99))
        }
        try await store.insertCommand(command, queueing: queued("m1"))
        #expect(try await store.command(appID: appID, id: "c1")?.state == .sending)
        #expect(try await store.pendingMessages(limit: 10) == [message("m1", commandID: "c1")])
        // Stored claimed by the gateway that publishes it: another gateway does not take it.
        #expect(try await store.claimMessages(gateway: "gw-2", limit: 10, now: 50, leaseUntil: 200).isEmpty)
        // The same command again: refused whole, no second push.
        await #expect(throws: (any Error).self) { try await store.insertCommand(command, queueing: queued("m2")) }
        #expect(try await store.pendingMessages(limit: 10).map(\.id) == ["m1"])

        try await store.recordResults(
            appID: appID, id: "c1", results: [["turnPower": ["succeeded": true]]], state: .done, at: 5,
            queueing: queued("m3"))
        #expect(try await store.command(appID: appID, id: "c1")?.state == .done)
        #expect(try await store.pendingMessages(limit: 10).map(\.id) == ["m1", "m3"])
        // Results whose push cannot be stored (its ID is taken) are not recorded either.
        await #expect(throws: (any Error).self) {
            try await store.recordResults(
                appID: appID, id: "c1", results: [], state: .incomplete, at: 6, queueing: queued("m3"))
        }
        #expect(try await store.command(appID: appID, id: "c1")?.state == .done)
    }

    @Test(
        "A dead letter leaves the outbox and keeps its attempts; the command it carried is left to its service",
        arguments: StoreEngine.allCases)
    func deadLetters(_ engine: StoreEngine) async throws {
        let (store, command) = try await storeWithThing(engine)
        try await store.insertCommand(command)
        try await store.enqueue([message("m1", commandID: "c1"), message("m2"), message("m3")])
        try await store.recordFailedAttempt(ids: ["m1"])
        try await store.deadLetter(ids: ["m1", "m2"], reason: "too large", at: 50)
        #expect(try await store.pendingMessages(limit: 10).map(\.id) == ["m3"])
        #expect(try await store.deadLetterCount() == 2)
        #expect(try await store.command(appID: appID, id: "c1")?.state == .sending)
        let page = try await store.deadLetters(appID: appID, limit: 1, before: nil)
        #expect(page.map(\.letter.message.id) == ["m2"])
        let next = try await store.deadLetters(appID: appID, limit: 5, before: page.last?.sequence)
        #expect(next.map(\.letter.message.id) == ["m1"])
        #expect(next.first?.letter.message.attempts == 2)
        #expect(next.first?.letter.failedAt == 50)
        #expect(next.first?.letter.reason == "too large")
        #expect(next.first?.letter.message.payload == message("m1").payload)
        #expect(try await store.deadLetters(appID: AppID("other"), limit: 5, before: nil).isEmpty)
    }

    @Test(
        "Two gateways never hold one message at once; a dead gateway's messages are taken once its lease ran out",
        arguments: StoreEngine.allCases)
    func claims(_ engine: StoreEngine) async throws {
        let store = try await engine.newStore(appID: appID)
        try await store.enqueue((1...5).map { message("m\($0)") })
        let a = try await store.claimMessages(gateway: "a", limit: 3, now: 100, leaseUntil: 200)
        #expect(a.map(\.id) == ["m1", "m2", "m3"])
        let b = try await store.claimMessages(gateway: "b", limit: 10, now: 100, leaseUntil: 200)
        #expect(b.map(\.id) == ["m4", "m5"])
        // A's own are A's again (a retry); nobody else's.
        #expect(
            try await store.claimMessages(gateway: "a", limit: 10, now: 150, leaseUntil: 250).map(\.id) == [
                "m1", "m2", "m3",
            ])
        try await store.completeMessages(ids: ["m1"])
        // B dies; once its lease ran out, A takes its messages.
        #expect(
            try await store.claimMessages(gateway: "a", limit: 10, now: 199, leaseUntil: 300).map(\.id) == ["m2", "m3"])
        #expect(
            try await store.claimMessages(gateway: "a", limit: 10, now: 201, leaseUntil: 300).map(\.id) == [
                "m2", "m3", "m4", "m5",
            ])
        #expect(try await store.claimMessages(gateway: "b", limit: 10, now: 250, leaseUntil: 350).isEmpty)
    }

    @Test(
        "A scheduled job's lease: one holder until it runs out, extended by its holder",
        arguments: StoreEngine.allCases)
    func jobLeases(_ engine: StoreEngine) async throws {
        let store = try await engine.newStore(appID: appID)
        #expect(try await store.takeJobLease("cleanup", gateway: "a", now: 0, until: 100))
        #expect(try await store.takeJobLease("cleanup", gateway: "b", now: 50, until: 150) == false)
        #expect(try await store.takeJobLease("other", gateway: "b", now: 50, until: 150))
        #expect(try await store.takeJobLease("cleanup", gateway: "a", now: 90, until: 190))
        #expect(try await store.takeJobLease("cleanup", gateway: "b", now: 150, until: 250) == false)
        #expect(try await store.takeJobLease("cleanup", gateway: "b", now: 191, until: 291))
        #expect(try await store.takeJobLease("cleanup", gateway: "a", now: 200, until: 300) == false)
    }

    @Test(
        "A message waiting for a broker keeps the brokers that have it and is postponed for every gateway",
        arguments: StoreEngine.allCases)
    func brokerProgress(_ engine: StoreEngine) async throws {
        let store = try await engine.newStore(appID: appID)
        try await store.enqueue([message("m1"), message("m2")])
        #expect(try await store.claimMessages(gateway: "a", limit: 10, now: 100, leaseUntil: 200).count == 2)
        try await store.recordProgress(id: "m1", deliveredBrokers: ["one", "three"])
        try await store.postponeMessages(ids: ["m1"], until: 150)
        // Not even its last holder takes it before then; afterwards anyone does.
        #expect(try await store.claimMessages(gateway: "a", limit: 10, now: 120, leaseUntil: 220).map(\.id) == ["m2"])
        #expect(try await store.claimMessages(gateway: "b", limit: 10, now: 140, leaseUntil: 240).isEmpty)
        let later = try await store.claimMessages(gateway: "b", limit: 10, now: 151, leaseUntil: 251)
        #expect(later.map(\.id) == ["m1"])
        #expect(later.first?.deliveredBrokers == ["one", "three"])
        #expect(later.first?.attempts == 0)
        #expect(try await store.pendingMessages(limit: 10).last?.deliveredBrokers == [])
        try await store.deadLetter(ids: ["m1"], reason: "gave up", at: 300)
        let letter = try await store.deadLetters(appID: appID, limit: 1, before: nil).first?.letter
        #expect(letter?.message.deliveredBrokers == ["one", "three"])
    }

    @Test(
        "A traced message stays traced; its deliveries add pending devices without undoing outcomes, record outcomes over them, and are forgotten after a day",
        arguments: StoreEngine.allCases)
    func traces(_ engine: StoreEngine) async throws {
        let store = try await engine.newStore(appID: appID)
        var traced = message("m1")
        traced.traced = true
        try await store.enqueue([traced, message("m2")])
        #expect(try await store.pendingMessages(limit: 10).map(\.traced) == [true, false])
        try await store.deadLetter(ids: ["m1"], reason: "gave up", at: 300)
        #expect(try await store.deadLetters(appID: appID, limit: 1, before: nil).first?.letter.message.traced == true)

        let day = DeliveryTraceRetention.span.wholeMilliseconds
        func delivery(_ installation: String, _ state: DeliveryState, at: Int64, message: PushMessageID = "m1")
            -> DeviceDelivery
        {
            DeviceDelivery(
                messageID: message, appID: appID, installationID: InstallationID(installation),
                principal: .user(UserID("u-\(installation)")), mqttTopic: "topic-\(installation)", state: state,
                detail: state == .failed ? "refused" : nil, at: UnixMillis(at))
        }
        try await store.recordDeliveries([delivery("i1", .acknowledged, at: day + 10)], replacing: true)
        // Pending devices of the push being accepted: the one recorded already keeps its outcome.
        try await store.recordDeliveries(
            [delivery("i1", .pending, at: day + 5), delivery("i2", .pending, at: day + 5)], replacing: false)
        #expect(
            try await store.deliveries(appID: appID, messageID: "m1") == [
                delivery("i1", .acknowledged, at: day + 10), delivery("i2", .pending, at: day + 5),
            ])
        try await store.recordDeliveries([delivery("i2", .failed, at: day + 20)], replacing: true)
        #expect(try await store.deliveries(appID: appID, messageID: "m1").map(\.state) == [.acknowledged, .failed])
        #expect(try await store.deliveries(appID: appID, messageID: "m1").last?.detail == "refused")
        #expect(try await store.deliveries(appID: AppID("other"), messageID: "m1").isEmpty)
        // A day later, the old records go when new ones are written.
        try await store.recordDeliveries([delivery("i3", .pending, at: 2 * day + 11, message: "m3")], replacing: false)
        #expect(try await store.deliveries(appID: appID, messageID: "m1").map(\.installationID.rawValue) == ["i2"])
    }

    @Test(
        "Last-seen times are written by MQTT username, never moving back; the apps of usernames are looked up",
        arguments: StoreEngine.allCases)
    func lastSeen(_ engine: StoreEngine) async throws {
        let store = try await engine.newStore(appID: appID)
        for name in ["a", "b"] {
            try await store.insertInstallation(
                Installation(
                    id: InstallationID("i-\(name)"), appID: appID, principal: .user(UserID("u1")), deviceType: "MQTT",
                    registrationID: name, mqttTopic: "topic-\(name)", development: false, createdAt: 1,
                    tokenHash: nil))
        }
        try await store.recordLastSeen(["topic-a": 500, "topic-b": 600, "topic-unknown": 700])
        try await store.recordLastSeen(["topic-a": 400])
        let seen = try await store.liveInstallations(appID: appID, principals: [.user(UserID("u1"))])
        #expect(
            Dictionary(uniqueKeysWithValues: seen.map { ($0.mqttTopic, $0.lastSeenAt) }) == [
                "topic-a": 500, "topic-b": 600,
            ])
        #expect(
            try await store.installationApps(mqttTopics: ["topic-a", "topic-b", "topic-unknown"]) == [
                "topic-a": appID, "topic-b": appID,
            ])
        #expect(try await store.installationApps(mqttTopics: []).isEmpty)
    }

    @Test(
        "A command's push marks it: when a broker first took it (its state unchanged), failed from SENDING only; a command past SENDING keeps its state",
        arguments: StoreEngine.allCases)
    func commandMarks(_ engine: StoreEngine) async throws {
        let (store, command) = try await storeWithThing(engine)
        try await store.insertCommand(
            command,
            queueing: QueuedPush(
                message: message("m1", commandID: "c1"), claim: OutboxClaim(gateway: "gw-1", leaseUntil: 99)))
        #expect(try await store.command(appID: appID, id: "c1")?.publishedAt == nil)
        try await store.completeMessages(ids: [], publishedCommands: [appID: ["c1"]], at: 30)
        let published = try await store.command(appID: appID, id: "c1")
        #expect(published?.state == .sending)
        #expect(published?.publishedAt == 30)
        // The first time stays.
        try await store.completeMessages(ids: [], publishedCommands: [appID: ["c1"]], at: 35)
        #expect(try await store.command(appID: appID, id: "c1")?.publishedAt == 30)
        try await store.markSendFailed(appID: appID, ids: ["c1"], at: 40)
        let failed = try await store.command(appID: appID, id: "c1")
        #expect(failed?.state == .sendFailed)
        #expect(failed?.modifiedAt == 40)
        // Results that arrive all the same are recorded; a late mark does not move them back.
        try await store.recordResults(
            appID: appID, id: "c1", results: ["ok": true], state: .done, at: 60, queueing: nil)
        try await store.markSendFailed(appID: appID, ids: ["c1"], at: 70)
        #expect(try await store.command(appID: appID, id: "c1")?.state == .done)
        try await store.completeMessages(ids: ["m1"])
        #expect(try await store.pendingMessageCount() == 0)
    }
}
