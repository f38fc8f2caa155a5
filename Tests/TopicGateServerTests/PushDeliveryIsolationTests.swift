import Foundation
import Logging
import MQTTBridge
import Synchronization
import TestSupport
import Testing
import TopicGateCore
import TopicGateStore

@testable import TopicGateServer

/// The delivery service's isolation rules with a link that never acknowledges one payload.
@Suite("Push delivery isolation")
struct PushDeliveryIsolationTests {
    /// Acknowledges every payload but those containing "poison", and remembers what it took.
    final class PickyLink: DeviceLink, @unchecked Sendable {
        // @unchecked: the delivery service calls it from one task at a time.
        var delivered: [String] = []
        /// The installation topic of each publication, in order.
        var topics: [String] = []
        var isReady: Bool { true }

        func deliver(_ publications: [DevicePublication]) async -> [Int: DeliveryFailure] {
            var failures: [Int: DeliveryFailure] = [:]
            for (index, publication) in publications.enumerated() {
                topics.append(publication.topic)
                let text = String(decoding: publication.payload, as: UTF8.self)
                if text.contains("poison") { failures[index] = .unacknowledged } else { delivered.append(text) }
            }
            return failures
        }

        func revoke(_ installations: [Installation]) async {}
    }

    /// Publishes at `start`, before anything awaits the outcome (as the brokers' link does), and
    /// acknowledges every payload but those containing "poison"; while `holding`, the answers
    /// wait for `answer()` (a broker that is slow to acknowledge).
    final class EagerLink: DeviceLink, Sendable {
        let published = Mutex<[String]>([])
        let holding: Atomic<Bool>
        private let held = Mutex<[@Sendable () -> Void]>([])
        var isReady: Bool { true }

        init(holding: Bool = false) { self.holding = Atomic(holding) }

        func start(_ publications: [DevicePublication]) -> PendingDelivery {
            var failures: [Int: DeliveryFailure] = [:]
            for (index, publication) in publications.enumerated() {
                let text = String(decoding: publication.payload, as: UTF8.self)
                published.withLock { $0.append(text) }
                if text.contains("poison") { failures[index] = .unacknowledged }
            }
            return PendingDelivery { [failures, self] done in
                guard holding.load(ordering: .relaxed) else { return done(failures) }
                held.withLock { $0.append { done(failures) } }
            }
        }

        /// Sends the answers held so far, and holds no more.
        func answer() {
            holding.store(false, ordering: .relaxed)
            let answers = held.withLock { held in
                defer { held = [] }
                return held
            }
            for answer in answers { answer() }
        }

        func deliver(_ publications: [DevicePublication]) async -> [Int: DeliveryFailure] {
            await start(publications).failures()
        }

        func revoke(_ installations: [Installation]) async {}
    }

    /// A delivery service of gateway `gw-1` on `store`, with `fresh` as its fresh pushes, over a
    /// new `PickyLink`.
    static func service(
        on store: any Store, fresh: FreshPushes, publishedHereUpTo: Int = PushPipeline.fewRecipients
    ) -> (PushPipeline, PickyLink) {
        let link = PickyLink()
        let service = PushPipeline(
            store: store, devices: LiveEndpoints(store: store), link: link, wakeup: Wakeup(), time: .system,
            logger: Logger(label: "test"),
            metrics: ServerMetrics(), completion: CommandDelivery(store: store), fresh: fresh, gatewayID: "gw-1",
            publishedHereUpTo: publishedHereUpTo)
        return (service, link)
    }

    /// A new store with its default app, one user, and an MQTT device of that user per (topic,
    /// broker): a SQLite file in the returned folder, or with `TOPICGATE_TEST_STORE=postgres` a
    /// fresh database of the tests' PostgreSQL server, as `TestServer`'s.
    static func storeWithUser(devices: [(topic: String, broker: String?)]) async throws
        -> (store: any Store, app: App, user: User, directory: String)
    {
        let directory = TestFolder.url.appendingPathComponent("tg-push-\(UUID().uuidString)")
            .path
        var configuration = ServerConfiguration(dataDirectory: directory)
        try await TestServer.placeStore(&configuration)
        let store = try await openStore(configuration: configuration)
        // As in a gateway whose change feed is heard (no feed runs here): its caches trusted.
        if case .sharedGenerations(let generations) = store.caching {
            for generation in generations.all { generation.trust() }
        }
        let (app, _) = try await AppRegistry(store: store).defaultApp()
        let user = User(id: UserID("u1"), appID: app.id, createdAt: 1, modifiedAt: 1)
        try await store.insertUser(user)
        for device in devices {
            try await store.insertInstallation(
                Installation(
                    id: InstallationID(device.topic), appID: app.id, principal: .user(user.id), deviceType: "MQTT",
                    registrationID: device.topic, mqttTopic: device.topic, development: false,
                    createdAt: UnixMillis(1), tokenHash: nil, broker: device.broker))
        }
        return (store, app, user, directory)
    }

    @Test(
        "A message that keeps failing is tried alone, then dead-lettered after three attempts; the others are delivered"
    )
    func isolation() async throws {
        let (store, app, user, directory) = try await Self.storeWithUser(devices: [("topic-1", nil)])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func message(_ id: PushMessageID, _ text: String) -> OutboxMessage {
            OutboxMessage(id: id, appID: app.id, payload: Array(text.utf8), recipients: [.user(user.id)], acceptedAt: 1)
        }
        try await store.enqueue([message("a", "poison"), message("b", "fine-1"), message("c", "fine-2")])
        let link = PickyLink()
        let service = PushPipeline(
            store: store, devices: LiveEndpoints(store: store), link: link, wakeup: Wakeup(), time: .system,
            logger: Logger(label: "test"),
            metrics: ServerMetrics(), completion: CommandDelivery(store: store))
        var outcomes: [PushPipeline.Outcome] = []
        for _ in 0..<4 { outcomes.append(await service.deliverBatch()) }
        #expect(outcomes == [.failed, .failed, .more, .idle])
        #expect(link.delivered == ["fine-1", "fine-2"])
        try await service.settlement.flush()
        #expect(try await store.pendingMessageCount() == 0)
        let letters = try await store.deadLetters(appID: app.id, limit: 10, before: nil)
        #expect(letters.map(\.letter.message.id) == ["a"])
        #expect(letters.first?.letter.message.attempts == 3)
        #expect(letters.first?.letter.reason.contains("3 attempts") == true)
    }

    /// Remembers the completions the pipeline reports, by app.
    final class RecordingCompletion: PushCompletion {
        let failed = Mutex<[AppID: [CommandID]]>([:])

        func failed(_ commands: [AppID: [CommandID]], at: UnixMillis) async throws {
            failed.withLock { $0.merge(commands) { $0 + $1 } }
        }
    }

    @Test(
        "A message's completion: published (written with its settlement) once a device's broker acknowledged it, failed (reported) when dead-lettered or when its thing had no device"
    )
    func completions() async throws {
        let (store, app, user, directory) = try await Self.storeWithUser(devices: [("topic-1", nil)])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lamp = ThingID("lamp")
        try await store.insertThing(
            Thing(
                id: lamp, appID: app.id, vendorThingID: "v-lamp", passwordHash: "h", fields: ThingFields(),
                createdAt: 1, modifiedAt: 1))
        let request = try CommandRequest(body: ["actions": [["turnPower": true]], "issuer": "user:u1"])
        for id in ["c-fine", "c-poison", "c-nobody"] {
            try await store.insertCommand(
                Command(
                    id: CommandID(id), appID: app.id, thing: lamp, issuer: request.issuer, request: request,
                    createdAt: 1, modifiedAt: 1),
                queueing: nil)
        }
        func published() async throws -> [String] {
            var found: [String] = []
            for id in ["c-fine", "c-poison", "c-nobody"] {
                if try await store.command(appID: app.id, id: CommandID(id))?.publishedAt != nil { found.append(id) }
            }
            return found
        }
        func message(_ id: PushMessageID, _ text: String, command: CommandID, to recipient: Subscriber) -> OutboxMessage
        {
            OutboxMessage(
                id: id, appID: app.id, payload: Array(text.utf8), recipients: [recipient], acceptedAt: 1,
                commandID: command)
        }
        try await store.enqueue([
            message("a", "fine", command: "c-fine", to: .user(user.id)),
            message("b", "poison", command: "c-poison", to: .user(user.id)),
            message("c", "fine", command: "c-nobody", to: .thing(ThingID("no-devices"))),
        ])
        let completion = RecordingCompletion()
        let service = PushPipeline(
            store: store, devices: LiveEndpoints(store: store), link: PickyLink(), wakeup: Wakeup(),
            time: .system, logger: Logger(label: "test"), metrics: ServerMetrics(), completion: completion)
        #expect(await service.deliverBatch() == .failed)
        try await service.settlement.flush()
        #expect(try await published() == ["c-fine"])
        #expect(completion.failed.withLock { $0 } == [app.id: ["c-nobody"]])
        #expect(await service.deliverBatch() == .failed)
        #expect(await service.deliverBatch() == .more)
        #expect(completion.failed.withLock { $0 } == [app.id: ["c-nobody", "c-poison"]])
        try await service.settlement.flush()
        #expect(try await published() == ["c-fine"])
        #expect(try await store.pendingMessageCount() == 0)
    }

    @Test(
        "A traced message records each device's outcome: acknowledged while online, offline, pending while tried again, failed once dead-lettered"
    )
    func traced() async throws {
        let (store, app, user, directory) = try await Self.storeWithUser(devices: [("topic-1", nil), ("topic-2", nil)])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func message(_ id: PushMessageID, _ text: String) -> OutboxMessage {
            OutboxMessage(
                id: id, appID: app.id, payload: Array(text.utf8), recipients: [.user(user.id)], acceptedAt: 1,
                traced: true)
        }
        try await store.enqueue([message("a", "fine"), message("p", "poison")])
        let presence = DevicePresence()
        presence.record(.connected("topic-1"), broker: "b", at: 1)
        let service = PushPipeline(
            store: store, devices: LiveEndpoints(store: store), link: PickyLink(), wakeup: Wakeup(), time: .system,
            logger: Logger(label: "test"),
            metrics: ServerMetrics(), completion: CommandDelivery(store: store), presence: presence)
        func states(_ id: PushMessageID) async throws -> [String: DeliveryState] {
            Dictionary(
                uniqueKeysWithValues: try await store.deliveries(appID: app.id, messageID: id).map {
                    ($0.mqttTopic, $0.state)
                })
        }
        #expect(await service.deliverBatch() == .failed)
        #expect(try await states("a") == ["topic-1": .acknowledged, "topic-2": .offline])
        #expect(try await states("p") == ["topic-1": .pending, "topic-2": .pending])
        #expect(await service.deliverBatch() == .failed)
        #expect(await service.deliverBatch() == .more)
        #expect(try await states("p") == ["topic-1": .failed, "topic-2": .failed])
        let detail = try await store.deliveries(appID: app.id, messageID: "p").first?.detail
        #expect(detail == "not acknowledged by the broker after 3 attempts")
    }

    /// Two brokers, "a" and "b"; the one named in `down` is not connected.
    final class TwoBrokers: DeviceLink, @unchecked Sendable {
        // @unchecked: the delivery service calls it from one task at a time.
        var down: Set<String> = []
        var delivered: [String] = []  // "broker topic payload"
        var isReady: Bool { down.count < 2 }

        func broker(serving endpoint: PushEndpoint) -> String { endpoint.broker ?? "a" }

        func deliver(_ publications: [DevicePublication]) async -> [Int: DeliveryFailure] {
            var failures: [Int: DeliveryFailure] = [:]
            for (index, publication) in publications.enumerated() {
                if down.contains(publication.broker) {
                    failures[index] = .brokerUnavailable
                } else {
                    delivered.append(
                        "\(publication.broker) \(publication.topic) \(String(decoding: publication.payload, as: UTF8.self))"
                    )
                }
            }
            return failures
        }

        func revoke(_ installations: [Installation]) async {}
    }

    @Test("A broker that is down holds up only its own devices; they get the message, once, when it is back")
    func brokerDown() async throws {
        let (store, app, user, directory) = try await Self.storeWithUser(devices: [
            ("on-a", "a"), ("on-b", "b"), ("unnamed", nil),
        ])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = ManualClock()
        try await store.enqueue([
            OutboxMessage(
                id: "m1", appID: app.id, payload: Array("one".utf8), recipients: [.user(user.id)], acceptedAt: 1)
        ])
        let link = TwoBrokers()
        link.down = ["b"]
        let service = PushPipeline(
            store: store, devices: LiveEndpoints(store: store), link: link, wakeup: Wakeup(),
            time: clock.timeSource, logger: Logger(label: "test"),
            metrics: ServerMetrics(), completion: CommandDelivery(store: store))
        #expect(await service.deliverBatch() == .idle)
        #expect(link.delivered.sorted() == ["a on-a one", "a unnamed one"])
        // Waiting is no attempt, and the message is left alone meanwhile.
        #expect(try await store.pendingMessages(limit: 10).map(\.attempts) == [0])
        #expect(await service.deliverBatch() == .idle)
        #expect(link.delivered.count == 2)
        // Still down a second later: postponed again, never dead-lettered.
        clock.advance(seconds: 2)
        #expect(await service.deliverBatch() == .idle)
        #expect(link.delivered.count == 2)
        #expect(try await store.deadLetterCount() == 0)
        link.down = []
        clock.advance(seconds: 2)
        #expect(await service.deliverBatch() == .idle)
        #expect(link.delivered.sorted() == ["a on-a one", "a unnamed one", "b on-b one"])
        try await service.settlement.flush()
        #expect(try await store.pendingMessageCount() == 0)
    }

    @Test(
        "A push the outbox writer hands over is delivered once, from memory: the outbox claim skips it, and a failed one is tried again from the outbox"
    )
    func handedOver() async throws {
        let (store, app, user, directory) = try await Self.storeWithUser(devices: [("topic-1", nil)])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fresh = FreshPushes()
        // Nothing published by the writing task: all handed over.
        let (service, link) = Self.service(on: store, fresh: fresh, publishedHereUpTo: 0)
        for (id, text) in [("a", "fine-1"), ("b", "poison"), ("c", "fine-2")] {
            try await service.dispatch(
                OutboxMessage(
                    id: PushMessageID(id), appID: app.id, payload: Array(text.utf8), recipients: [.user(user.id)],
                    acceptedAt: 1))
        }
        // Stored claimed by the gateway that wrote them: another gateway leaves them alone.
        #expect(try await store.claimMessages(gateway: "gw-2", limit: 10, now: 2, leaseUntil: 3).isEmpty)
        #expect(link.delivered.isEmpty)
        // The writer's own claim skips what waits in memory.
        #expect(fresh.unreserved(try await store.pendingMessages(limit: 10)).isEmpty)
        #expect(await service.deliverBatch(checkingOutbox: false) == .failed)
        #expect(link.delivered == ["fine-1", "fine-2"])
        #expect(await service.deliverBatch(checkingOutbox: false) == .handed)
        try await service.settlement.flush()
        // The failed one, recorded with its attempt, comes back from the outbox, alone.
        #expect(try await store.pendingMessages(limit: 10).map(\.id) == ["b"])
        #expect(await service.deliverBatch() == .failed)
        #expect(link.delivered == ["fine-1", "fine-2"])
        #expect(try await store.pendingMessages(limit: 10).map(\.attempts) == [2])
    }

    @Test(
        "A push its request publishes itself is out before the write returns: an acknowledged one is settled without the delivery service, a failed one is handed to it and tried again from the outbox"
    )
    func publishedByRequest() async throws {
        let (store, app, user, directory) = try await Self.storeWithUser(devices: [("topic-1", nil)])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fresh = FreshPushes(startedCapacity: 2)
        let link = EagerLink()
        let service = try await Self.threeWritten(
            through: link, store: store, app: app, user: user, fresh: fresh)
        // Answered at once, none holds the cap: each published by its own request.
        #expect(link.published.withLock { $0 } == ["fine-1", "poison", "fine-2"])
        // All three stay reserved: the outbox claim of this gateway skips them.
        #expect(fresh.unreserved(try await store.pendingMessages(limit: 10)).isEmpty)
        #expect(service.settlement.holds("a") && service.settlement.holds("c"))
        #expect(!service.settlement.holds("b"))
        // The failed one is the delivery service's: it records the attempt.
        #expect(await service.deliverBatch(checkingOutbox: false) == .failed)
        try await service.settlement.flush()
        // The unacknowledged one is in the outbox with its attempt, for another try.
        let left = try await store.pendingMessages(limit: 10)
        #expect(left.map(\.id) == ["b"])
        #expect(left.map(\.attempts) == [1])
        #expect(fresh.unreserved(left).map(\.id) == ["b"])

        // A fan-out (more than a few recipients) is left to the service to publish.
        let others = (1...PushPipeline.fewRecipients).map { Subscriber.user(UserID("other-\($0)")) }
        try await service.dispatch(
            OutboxMessage(
                id: "d", appID: app.id, payload: Array("fan-out".utf8), recipients: [.user(user.id)] + others,
                acceptedAt: 1))
        #expect(link.published.withLock { $0 }.count == 3)
        #expect(await service.deliverBatch(checkingOutbox: false) == .more)
        #expect(link.published.withLock { $0 }.last == "fan-out")
    }

    /// A pipeline on `link` that publishes what it writes, with "a" ("fine-1"), "b" ("poison")
    /// and "c" ("fine-2") written to the user, one request each.
    static func threeWritten(
        through link: EagerLink, store: any Store, app: App, user: User, fresh: FreshPushes
    ) async throws -> PushPipeline {
        let service = PushPipeline(
            store: store, devices: LiveEndpoints(store: store), link: link, wakeup: Wakeup(), time: .system,
            logger: Logger(label: "test"), metrics: ServerMetrics(), completion: CommandDelivery(store: store),
            fresh: fresh, gatewayID: "gw-1")
        for (id, text) in [("a", "fine-1"), ("b", "poison"), ("c", "fine-2")] {
            try await service.dispatch(
                OutboxMessage(
                    id: PushMessageID(id), appID: app.id, payload: Array(text.utf8), recipients: [.user(user.id)],
                    acceptedAt: 1))
        }
        return service
    }

    @Test(
        "A push its request published is settled in memory when the broker acknowledges it, by no task; a failed one goes to the delivery service; those still unanswered count against the cap"
    )
    func followedByAcknowledgement() async throws {
        let (store, app, user, directory) = try await Self.storeWithUser(devices: [("topic-1", nil)])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fresh = FreshPushes(startedCapacity: 2)
        let link = EagerLink(holding: true)
        let service = try await Self.threeWritten(
            through: link, store: store, app: app, user: user, fresh: fresh)
        let settlement = service.settlement
        // Two published and unanswered: the third, past the cap, is left to the service.
        #expect(link.published.withLock { $0 } == ["fine-1", "poison"])
        #expect(!fresh.mayStart)
        #expect(!settlement.holds("a"))
        link.answer()
        // The acknowledged one waits for its settlement, settled by no task of the service.
        #expect(settlement.holds("a"))
        #expect(!settlement.holds("b"))
        #expect(fresh.mayStart)
        // The unacknowledged one: its attempt recorded by the service, then the third published.
        #expect(await service.deliverBatch(checkingOutbox: false) == .failed)
        #expect(await service.deliverBatch(checkingOutbox: false) == .more)
        #expect(link.published.withLock { $0 } == ["fine-1", "poison", "fine-2"])
        #expect(await service.deliverBatch(checkingOutbox: false) == .handed)
        try await settlement.flush()
        let left = try await store.pendingMessages(limit: 10)
        #expect(left.map(\.id) == ["b"])
        #expect(left.map(\.attempts) == [1])
        #expect(fresh.unreserved(left).map(\.id) == ["b"])
    }

    @Test(
        "Delivered pushes are settled off the delivery path: reserved (never claimed again) until their settlement removes them from the outbox"
    )
    func settlement() async throws {
        let (store, app, user, directory) = try await Self.storeWithUser(devices: [("topic-1", nil)])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fresh = FreshPushes()
        let (service, link) = Self.service(on: store, fresh: fresh, publishedHereUpTo: 0)
        let settlement = service.settlement
        // One from memory, one only in the outbox (another gateway's, whose lease ran out).
        try await service.dispatch(
            OutboxMessage(
                id: "a", appID: app.id, payload: Array("fine-1".utf8), recipients: [.user(user.id)], acceptedAt: 1))
        try await store.enqueue(
            [
                OutboxMessage(
                    id: "b", appID: app.id, payload: Array("fine-2".utf8), recipients: [.user(user.id)], acceptedAt: 2)
            ],
            claim: OutboxClaim(gateway: "gw-dead", leaseUntil: 0))
        #expect(await service.deliverBatch(checkingOutbox: false) == .more)
        #expect(await service.deliverBatch() == .idle)
        #expect(link.delivered == ["fine-1", "fine-2"])
        // Both delivered, not yet settled: still in the outbox, and this gateway's claims skip them.
        #expect(try await store.pendingMessageCount() == 2)
        #expect(settlement.holds("a") && settlement.holds("b"))
        #expect(await service.deliverBatch() == .idle)
        #expect(link.delivered.count == 2)
        try await settlement.flush()
        #expect(try await store.pendingMessageCount() == 0)
        #expect(!settlement.holds("a") && !settlement.holds("b"))
        #expect(
            fresh.unreserved([OutboxMessage(id: "a", appID: app.id, payload: [], recipients: [], acceptedAt: 1)]).count
                == 1)
        #expect(await service.deliverBatch() == .idle)
        #expect(link.delivered.count == 2)
    }

    @Test(
        "A claim that reads a delivered push an instant before its settlement removes it does not deliver it again"
    )
    func settledDuringClaim() async throws {
        let (store, app, user, directory) = try await Self.storeWithUser(devices: [("topic-1", nil)])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fresh = FreshPushes()
        let (service, link) = Self.service(on: store, fresh: fresh, publishedHereUpTo: 0)
        try await service.dispatch(
            OutboxMessage(
                id: "a", appID: app.id, payload: Array("fine-1".utf8), recipients: [.user(user.id)], acceptedAt: 1))
        #expect(await service.deliverBatch(checkingOutbox: false) == .more)
        #expect(link.delivered == ["fine-1"])
        // The claim reads "a" (still in the outbox, claimed by this gateway), then the settlement
        // deletes and releases it before the claim looks at what is reserved.
        var read: [OutboxMessage] = []
        let pending = try await fresh.claim {
            read = try await store.claimMessages(gateway: "gw-1", limit: 10, now: 2, leaseUntil: 3)
            try await service.settlement.flush()
            return read
        }
        #expect(read.map(\.id) == ["a"])
        #expect(fresh.unreserved(read).map(\.id) == ["a"])  // what the claim would take without the guard
        #expect(pending.isEmpty)
        #expect(try await store.pendingMessageCount() == 0)
        // A message released before a claim begins is the claim's again (a failed one, tried anew).
        #expect(try await fresh.claim { read }.map(\.id) == ["a"])
    }

    @Test(
        "The recipients' devices kept in memory never outlive a change: a revoked installation gets nothing from the next delivery, one registered a moment ago gets it"
    )
    func keptDevices() async throws {
        let (store, app, user, directory) = try await Self.storeWithUser(devices: [("topic-1", nil)])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bob = User(id: UserID("bob"), appID: app.id, createdAt: 1, modifiedAt: 1)
        try await store.insertUser(bob)
        let link = PickyLink()
        let devices = LiveEndpoints(store: store)
        let service = PushPipeline(
            store: store, devices: devices, link: link, wakeup: Wakeup(), time: .system, logger: Logger(label: "test"),
            metrics: ServerMetrics(), completion: CommandDelivery(store: store))
        /// Queues a push to the user and bob, delivers it, and gives the topics it went to.
        func push(_ id: String) async throws -> [String] {
            try await store.enqueue([
                OutboxMessage(
                    id: PushMessageID(id), appID: app.id, payload: Array(id.utf8),
                    recipients: [.user(user.id), .user(bob.id)],
                    acceptedAt: 1)
            ])
            let before = link.topics.count
            #expect(await service.deliverBatch() == .idle)
            return Array(link.topics[before...])
        }
        #expect(try await push("m1") == ["topic-1"])
        #expect(try await push("m2") == ["topic-1"])
        // Both principals are kept now: the user with one device, bob with none.
        #expect(
            try await devices.kept.values([.init(app.id, .user(bob.id))]) { _ in [:] }.count == 1)
        try await store.insertInstallation(
            Installation(
                id: InstallationID("bob-1"), appID: app.id, principal: .user(bob.id), deviceType: "MQTT",
                registrationID: "bob-1", mqttTopic: "bob-1", development: false, createdAt: UnixMillis(2),
                tokenHash: nil))
        #expect(try await push("m3") == ["topic-1", "bob-1"])
        _ = try await store.revokeInstallations(appID: app.id, .one(InstallationID("topic-1")), now: 2)
        #expect(try await push("m4") == ["bob-1"])
    }
}

extension PushDeliveryIsolationTests {
    /// Publishes at `start`, remembers how many publications each call handed it, and fails
    /// those to the topics in `failing`.
    final class ChunkLink: DeviceLink, Sendable {
        let handed = Mutex<[Int]>([])
        /// Each publication handed over: its topic and payload.
        let publications = Mutex<[String]>([])
        let failing: Set<String>
        var isReady: Bool { true }

        init(failing: Set<String>) { self.failing = failing }

        func start(_ publications: [DevicePublication]) -> PendingDelivery {
            handed.withLock { $0.append(publications.count) }
            self.publications.withLock {
                $0 += publications.map { "\($0.topic) \(String(decoding: $0.payload, as: UTF8.self))" }
            }
            var failures: [Int: DeliveryFailure] = [:]
            for (index, publication) in publications.enumerated() where failing.contains(publication.topic) {
                failures[index] = .unacknowledged
            }
            return .settled(failures)
        }

        func deliver(_ publications: [DevicePublication]) async -> [Int: DeliveryFailure] {
            await start(publications).failures()
        }

        func revoke(_ installations: [Installation]) async {}
    }

    @Test(
        "A batch's recipients are looked up and handed to the brokers a chunk at a time; each failure still counts against its own message",
        // Kept, and (more recipients than kept) read without keeping: a chunk of one message's
        // recipients then takes the store's list as it is.
        arguments: [20_000, 2])
    func chunkedLookup(capacity: Int) async throws {
        let (store, app, _, directory) = try await Self.storeWithUser(devices: [])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var users: [UserID] = []
        for number in 1...7 {
            let user = User(id: UserID("chunk-u\(number)"), appID: app.id, createdAt: 1, modifiedAt: 1)
            try await store.insertUser(user)
            try await store.insertInstallation(
                Installation(
                    id: InstallationID("chunk-d\(number)"), appID: app.id, principal: .user(user.id),
                    deviceType: "MQTT", registrationID: "chunk-d\(number)", mqttTopic: "chunk-t\(number)",
                    development: false, createdAt: UnixMillis(1), tokenHash: nil))
            users.append(user.id)
        }
        // Message a goes to users 1–5, b to users 6 and 7; the device of user 7 never acknowledges.
        try await store.enqueue([
            OutboxMessage(
                id: "a", appID: app.id, payload: Array("to five".utf8), recipients: users[0..<5].map { .user($0) },
                acceptedAt: 1),
            OutboxMessage(
                id: "b", appID: app.id, payload: Array("to two".utf8), recipients: users[5..<7].map { .user($0) },
                acceptedAt: 1),
        ])
        let link = ChunkLink(failing: ["chunk-t7"])
        let service = PushPipeline(
            store: store, devices: LiveEndpoints(store: store, capacity: capacity), link: link, wakeup: Wakeup(),
            time: .system,
            logger: Logger(label: "test"), metrics: ServerMetrics(), completion: CommandDelivery(store: store),
            lookupChunk: 3)
        #expect(await service.deliverBatch() == .failed)
        // Three lookups of at most three recipients, each chunk handed over as soon as it was read.
        #expect(link.handed.withLock { $0 } == [3, 3, 1])
        // Each device had its own message once, and nothing else.
        #expect(
            link.publications.withLock { $0 }.sorted()
                == (1...5).map { "chunk-t\($0) to five" } + (6...7).map { "chunk-t\($0) to two" })
        try await service.settlement.flush()
        // The failure was the last chunk's first publication: message b's, not a's.
        let left = try await store.claimMessages(
            gateway: "check", limit: 10, now: UnixMillis(Int64.max / 2), leaseUntil: UnixMillis(Int64.max / 2))
        #expect(left.map(\.id) == ["b"])
        #expect(left.first?.attempts == 1)
    }
}
